package tool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/pathx"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// fioJob runs fio with a JSON status report every second. Its files go in
// a fresh directory inside Spec.Dir, removed afterwards, unless the job
// says where they go itself.
type fioJob struct {
	programs
	sp   probe.Spec
	args []string
	// place: the arguments or the job file choose where fio's files go
	// (directory= or filename=), so perfbisect gives no --directory: fio
	// would put an absolute filename, even a device, under it.
	place bool

	bin  string
	base baseDir
	work string // the fresh directory, "" when none
}

// fioOwnOptions are the options perfbisect gives fio itself.
var fioOwnOptions = []string{"output-format", "output", "status-interval"}

func newFio(spec probe.Spec, run programs) (*fioJob, error) {
	args, err := splitWords(spec.Args)
	if err != nil {
		return nil, fmt.Errorf("--args %q: %v (quote as in a shell)", spec.Args, err)
	}
	j := &fioJob{programs: run, sp: spec, args: args}
	for _, a := range args {
		name := optionName(a)
		for _, own := range fioOwnOptions {
			if name == own {
				return nil, fmt.Errorf("--args: %s: perfbisect gives fio --output-format=json+ --status-interval=1 itself, to read its numbers every second; remove it", a)
			}
		}
		if name == "directory" || name == "filename" {
			j.place = true
		}
	}
	return j, nil
}

// optionName is the name of a command-line option: "rw" for "--rw=write".
func optionName(arg string) string {
	if !strings.HasPrefix(arg, "--") {
		return ""
	}
	name, _, _ := strings.Cut(arg[2:], "=")
	return name
}

func (j *fioJob) spec() probe.Spec {
	s := j.sp
	s.Dir = j.base.path
	return s
}

func (j *fioJob) prepare(ctx context.Context) error {
	bin, err := exec.LookPath("fio")
	if err != nil {
		return missing("fio", err)
	}
	j.bin = bin
	if j.sp.JobFile != "" {
		abs, err := filepath.Abs(j.sp.JobFile)
		if err != nil {
			return fmt.Errorf("--job-file %s: %v", j.sp.JobFile, err)
		}
		j.sp.JobFile = abs
		places, err := jobFilePlaces(abs)
		if err != nil {
			return err
		}
		j.place = j.place || places
	}
	if j.base, err = makeBase(j.sp.Dir); err != nil {
		return err
	}
	if !j.place {
		if j.work, err = os.MkdirTemp(j.base.path, "perfbisect-fio-"); err != nil {
			return fmt.Errorf("create fio's directory in %s: %v (choose a writable --dir)", j.base.path, pathx.Bare(err))
		}
	}
	// fio checks its options as it starts, and would fail in the run;
	// --parse-only makes a bad option an error here, before anything runs.
	check := j.invocation()
	check.args = append([]string{"--parse-only"}, check.args...)
	if err := j.runSync(ctx, "fio --parse-only", check, nil); err != nil {
		return fmt.Errorf("fio does not take the job: %v (check --args and --job-file against 'man fio')", err)
	}
	return nil
}

// jobFilePlaces reports whether a fio job file sets directory= or filename=.
func jobFilePlaces(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("--job-file %s: %v", path, pathx.Bare(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if name = strings.TrimSpace(name); ok && (name == "directory" || name == "filename") {
			return true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("--job-file %s: %v", path, err)
	}
	return false, nil
}

// invocation is fio with perfbisect's options first, as defaults of every
// job, which the arguments and the job file may override: the run lasts the
// spec's duration (time_based: it goes over its files again until then)
// unless a job sets its own runtime; its jobs are threads of the fio
// process rather than forked processes, so they die with it if perfbisect
// is killed (only fio gets the parent-death signal).
func (j *fioJob) invocation() invocation {
	secs := int(math.Ceil(j.sp.Duration.Std().Seconds()))
	args := []string{"--output-format=json+", "--status-interval=1", fmt.Sprintf("--runtime=%d", secs), "--time_based", "--thread"}
	if j.work != "" {
		args = append(args, "--directory="+j.work)
	}
	args = append(args, j.args...)
	if j.sp.JobFile != "" {
		args = append(args, j.sp.JobFile)
	}
	return invocation{path: j.bin, args: args, dir: j.base.path}
}

func (j *fioJob) run() (run, error) {
	return run{name: "fio", invocation: j.invocation(), fromStdout: true, ownLimit: true}.reading(parse.FormatFioJSON)
}

func (j *fioJob) cleanup(context.Context) error {
	var errs []error
	if j.work != "" && !j.sp.Keep {
		if err := os.RemoveAll(j.work); err != nil {
			errs = append(errs, fmt.Errorf("remove fio's files in %s: %v", j.work, pathx.Bare(err)))
		}
		j.work = ""
	}
	if !j.sp.Keep {
		errs = append(errs, j.base.remove(false))
	}
	return errors.Join(errs...)
}
