package tool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/db"
)

// database is the server of a sysbench or pgbench workload: a managed one,
// started in Spec.Dir and thrown away after the run, or an existing one.
type database struct {
	programs
	sp     probe.Spec
	base   baseDir
	server *db.Server // nil for an existing server
	conn   db.Conn
	// created: the tool created its tables on an existing server, so close
	// drops them. A managed server is thrown away whole instead.
	created bool
}

// open starts the managed server, or says how to reach the existing one.
func (d *database) open(ctx context.Context) error {
	if !d.sp.Managed() {
		pw := ""
		if name := d.sp.DBPasswordEnv; name != "" {
			v, ok := os.LookupEnv(name)
			if !ok {
				return fmt.Errorf("--db-password-env %s: the variable is not set in perfbisect's environment (export it, or leave the option out for no password)", name)
			}
			pw = v
		}
		d.conn = db.Conn{Kind: d.sp.Server, Host: d.sp.DBHost, Port: d.sp.DBPort, Socket: d.sp.DBSocket,
			User: d.sp.DBUser, Password: pw, Database: d.sp.DBName}
		return nil
	}
	var err error
	if d.base, err = makeBase(d.sp.Dir); err != nil {
		return err
	}
	srv, err := db.Start(ctx, db.Options{Kind: d.sp.Server, Dir: d.base.path, NoSync: d.sp.SyncOff()})
	if err != nil {
		return err
	}
	d.server, d.conn = srv, srv.Conn
	return nil
}

// close drops, with drop, the tables the tool created on an existing
// server, and stops a managed server, which removes its data dir.
func (d *database) close(ctx context.Context, drop func() error) error {
	var errs []error
	if d.created && d.server == nil {
		errs = append(errs, drop())
		d.created = false
	}
	if d.server != nil {
		if err := d.server.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop the managed %s: %v", d.sp.Server, err))
		}
		d.server = nil
	}
	errs = append(errs, d.base.remove(false))
	return errors.Join(errs...)
}

func (d *database) spec() probe.Spec {
	s := d.sp
	if d.base.path != "" {
		s.Dir = d.base.path
	}
	return s
}

// describe says which server the workload runs against, with the settings
// a managed one was started with, for the summary.
func (d *database) describe() string {
	if d.server == nil {
		return strings.TrimPrefix(d.sp.DescribeDB(), "the ")
	}
	return fmt.Sprintf("managed %s %s (%s)", d.sp.Server, d.server.Version, strings.Join(d.server.Settings, ", "))
}
