package session

import (
	"os"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
)

// The test binary doubles as `perfbisect agent`, so the runner's tests run
// their workloads in a real child process, as perfbisect does.
func TestMain(m *testing.M) {
	hosttest.ServeIfAgent()
	os.Exit(m.Run())
}
