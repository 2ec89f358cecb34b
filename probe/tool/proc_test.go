package tool

import (
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// TestManagedDBEnv: a client of a managed server does not inherit the
// operator's PG*/MYSQL* variables (a stray MYSQL_PWD breaks the login, a
// PGOPTIONS changes what is measured); one of an existing server does.
func TestManagedDBEnv(t *testing.T) {
	t.Setenv("MYSQL_PWD", "stray")
	t.Setenv("PGOPTIONS", "-c synchronous_commit=off")
	t.Setenv("PERFBISECT_TEST_KEEP", "kept")
	for _, managed := range []bool{true, false} {
		var env []string
		inv := invocation{path: "/bin/sh", args: []string{"-c", "env"}, env: []string{"PGPASSWORD=given"}, managedDB: managed}
		if err := (programs{proc.Real{}}).runSync(t.Context(), "env", inv, func(l proc.Line) { env = append(env, l.Text) }); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(env, "\n")
		for _, v := range []string{"PERFBISECT_TEST_KEEP=kept", "PGPASSWORD=given"} {
			if !strings.Contains(got, v) {
				t.Errorf("managed %t: %s missing from the client's environment", managed, v)
			}
		}
		for _, v := range []string{"MYSQL_PWD=stray", "PGOPTIONS="} {
			if strings.Contains(got, v) == managed {
				t.Errorf("managed %t: %s in the client's environment: %t", managed, v, !managed)
			}
		}
	}
}
