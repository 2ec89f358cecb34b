package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/perfbisect/perfbisect/tui"
	"github.com/spf13/cobra"
)

func newLabCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "lab",
		Short: "Emulate EBS volumes on this machine with the kernel's I/O throttling",
		Long: `lab builds an emulated EBS volume on one Linux machine (root): an ext4
filesystem on a loop device whose write IOPS (and throughput) the kernel
throttles to the limits of the volume it imitates: gp2's 3 IOPS per GiB
(minimum 100) with its burst-credit bucket, gp3's 3000 IOPS and 125 MiB/s, or
io1's provisioned IOPS. It is an emulation: the kernel's throttle lets writes
through in bursts and then stalls, where EBS queues each one, so judge it on
throughput or the tail, not the median write.`,
	}
	c.AddCommand(newLabUpCmd(stdin, stdout), newLabStatusCmd(stdout), newLabDownCmd(stdin, stdout), newLabControllerCmd())
	return c
}

func newLabUpCmd(stdin io.Reader, stdout io.Writer) *cobra.Command {
	var (
		o                  lab.UpOptions
		typ                string
		iops, tput         int
		credits            float64
		yes, dryRun, drain bool
	)
	c := &cobra.Command{
		Use:   "up",
		Short: "Build the emulated volume (or change the one that is up)",
		Example: `  perfbisect lab up --yes                      # gp2 30 GiB with full burst credits
  perfbisect lab up --yes --drained            # the same volume on Halloween night: no credits left
  perfbisect lab up --yes --type gp3           # 3000 IOPS, 125 MiB/s`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if os.Geteuid() != 0 {
				return failure(errors.New("lab up needs root (loop devices, mounts, cgroups)"))
			}
			fl := c.Flags()
			st, err := lab.Current()
			if err != nil {
				return failure(fmt.Errorf("%w (perfbisect lab down --yes removes what it can)", err))
			}
			if err := lab.CheckScale(o.Scale); err != nil {
				return usageError(err) // before the plan is shown and approved
			}
			if st != nil && fl.Changed("scale") && o.Scale != st.Speed() {
				return usageError(fmt.Errorf("--scale %g: the lab that is up runs at %g; its scale is chosen when it is built (perfbisect lab down --yes, then lab up --scale %g)", o.Scale, st.Speed(), o.Scale))
			}
			if st != nil {
				// Only what was given changes the volume that is up.
				if !fl.Changed("type") {
					typ = st.Model.Type
				}
				if !fl.Changed("size") {
					o.SizeGiB = st.Model.SizeGiB
				}
				if !fl.Changed("type") && !fl.Changed("iops") {
					iops = st.Model.IOPS
				}
				if !fl.Changed("type") && !fl.Changed("throughput") {
					tput = st.Model.ThroughputMiB
				}
			}
			m, err := lab.NewModel(typ, o.SizeGiB, iops, tput)
			if err != nil {
				return usageError(err)
			}
			// --credits 0 is a drained bucket, not the default.
			o.Model, o.Credits, o.Drained = m, credits, drain || credits == 0
			if st != nil {
				return labChange(c.Context(), st, o, fl.Changed("credits") || drain, yes, dryRun, stdin, stdout)
			}
			plan := []string{
				fmt.Sprintf("create a sparse %d GiB file in %s and attach it to a loop device (losetup)", o.SizeGiB, o.Dir),
				"make an ext4 filesystem on it (mkfs.ext4) and mount it; the data directory is on it",
				"create a cgroup for the lab's workloads and throttle the loop device's writes: " + m.String() + speedNote(o.Scale),
				"start the lab's controller (gp2 burst credits drain and refill as writes come)",
			}
			if err := confirmPlan(c.Context(), "lab up", plan, "perfbisect lab down", yes, dryRun, stdin, stdout); err != nil {
				return err
			}
			st, err = lab.Up(c.Context(), o)
			if err != nil {
				return failure(err)
			}
			if err := startController(); err != nil {
				lab.Down(context.WithoutCancel(c.Context()))
				return failure(err)
			}
			fmt.Fprintf(stdout, "lab up (an emulation): %s%s\ndata dir: %s\n", st.Model, speedNote(st.Speed()), st.DataDir)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Dir, "backing", "/var/lib/perfbisect-lab", "directory for the volume's backing file")
	f.IntVar(&o.SizeGiB, "size", 30, "size of the emulated volume in GiB (a sparse file)")
	f.StringVar(&typ, "type", "gp2", "volume type: gp2, gp3 or io1")
	f.IntVar(&iops, "iops", 0, "provisioned IOPS (gp3: default 3000; io1: required)")
	f.IntVar(&tput, "throughput", 0, "provisioned throughput in MiB/s (gp3: default 125)")
	f.Float64Var(&credits, "credits", lab.MaxCredits, "gp2 burst credits to start with")
	f.BoolVar(&drain, "drained", false, "start with no burst credits (the seeds' Halloween night)")
	f.Float64Var(&o.Scale, "scale", 1, "run every limit at this fraction (0.25: a quarter of the IOPS and throughput), for a disk that cannot back the model's limits with room to spare; chosen when the lab is built")
	f.BoolVar(&yes, "yes", false, "do it without asking")
	f.BoolVar(&dryRun, "dry-run", false, "say what would be done, do nothing")
	return c
}

// labChange changes the volume of a lab that is up: its model (through
// SetModel, the lab's ModifyVolume) and, when asked, its credits.
func labChange(ctx context.Context, st *lab.State, o lab.UpOptions, setCredits, yes, dryRun bool, stdin io.Reader, stdout io.Writer) error {
	credits := st.Credits
	switch {
	case o.Drained:
		credits = 0
	case setCredits:
		credits = o.Credits
	}
	plan := []string{fmt.Sprintf("change the emulated volume from %s (%.0f credits) to %s (%.0f credits)", st.Model, st.Credits, o.Model, credits)}
	if err := confirmPlan(ctx, "lab up", plan, "perfbisect lab up with the old settings, or lab down", yes, dryRun, stdin, stdout); err != nil {
		return err
	}
	if o.Model != st.Model {
		if err := st.SetModel(o.Model); err != nil {
			return failure(err)
		}
	}
	if credits != st.Credits {
		if err := st.SetCredits(credits); err != nil {
			return failure(err)
		}
	}
	fmt.Fprintf(stdout, "lab (an emulation): %s, %.0f credits\ndata dir: %s\n", st.Model, st.Credits, st.DataDir)
	return nil
}

// confirmPlan says what a command will do and asks, unless --yes; with
// --dry-run it only says.
func confirmPlan(ctx context.Context, what string, plan []string, undo string, yes, dryRun bool, stdin io.Reader, stdout io.Writer) error {
	fmt.Fprintf(stdout, "%s will:\n", what)
	for _, p := range plan {
		fmt.Fprintf(stdout, "  - %s\n", p)
	}
	fmt.Fprintf(stdout, "  (undo: %s)\n", undo)
	if dryRun {
		fmt.Fprintln(stdout, "dry run: nothing was done")
		return errDryRun
	}
	if yes {
		return nil
	}
	t := tui.NewPrompt(stdin, stdout)
	if !t.Interactive() {
		return usageError(fmt.Errorf("%s changes this host and there is no terminal to ask: pass --yes, or --dry-run to see the plan", what))
	}
	ok, err := t.Ask(ctx, "go ahead? [y/N] ")
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return failure(err)
	}
	if !ok {
		return failure(errors.New("not confirmed: nothing was done"))
	}
	return nil
}

// errDryRun ends a dry run successfully.
var errDryRun = &exitError{exitOK, errors.New("dry run")}

func newLabStatusCmd(stdout io.Writer) *cobra.Command {
	var check time.Duration
	c := &cobra.Command{
		Use:   "status",
		Short: "Say what the lab emulates, its limits and burst balance, and measure it",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := lab.Current()
			if err != nil {
				return failure(err)
			}
			if st == nil {
				fmt.Fprintln(stdout, "lab: down (perfbisect lab up builds it)")
				return nil
			}
			iops, bps := st.Limit()
			fmt.Fprintf(stdout, "lab: up — an EMULATION of an EBS volume by kernel I/O throttling\n")
			fmt.Fprintf(stdout, "volume:    %s\n", st.Model)
			if st.Model.Type == "gp2" {
				fmt.Fprintf(stdout, "credits:   %.0f of %d (%s)\n", st.Credits, lab.MaxCredits, map[bool]string{true: "bursting", false: "drained: baseline"}[st.Bursting()])
			}
			if k := st.Speed(); k != 1 {
				fmt.Fprintf(stdout, "speed:     %gx the model's limits (lab up --scale)\n", k)
			}
			fmt.Fprintf(stdout, "limit now: %d write IOPS", iops)
			if bps > 0 {
				fmt.Fprintf(stdout, ", %d MiB/s", bps>>20)
			}
			fmt.Fprintf(stdout, "\nimage:     %s\ndata dir:  %s\ndevice:    %s (%s), cgroup %s (v%d)\n", st.ImageName(), st.DataDir, st.Loop, st.Dev, st.Cgroup, st.CgroupVersion)
			if check > 0 {
				got, err := st.Check(c.Context(), check)
				if err != nil {
					return failure(fmt.Errorf("measured check: %v", err))
				}
				fmt.Fprintf(stdout, "measured:  %.0f O_DSYNC 4 KiB writes/s over %v (the limit now is %d IOPS; each such write can cost more than one I/O)\n", got, check, iops)
			}
			return nil
		},
	}
	c.Flags().DurationVar(&check, "check", 3*time.Second, "how long to measure the volume (0: do not measure)")
	return c
}

func newLabDownCmd(stdin io.Reader, stdout io.Writer) *cobra.Command {
	var yes, dryRun bool
	c := &cobra.Command{
		Use:   "down",
		Short: "Remove the lab: its controller, throttle, cgroup, mount, loop device and backing file",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := lab.Current()
			if err != nil {
				// lab.Down would stop at it too, after the question.
				return failure(fmt.Errorf("%w: lab down needs it to know what to take down", err))
			}
			if st == nil {
				fmt.Fprintln(stdout, "lab: already down")
				return nil
			}
			plan := []string{fmt.Sprintf("stop the lab's controller, remove its throttle and cgroup, unmount, detach the loop device and delete the backing file (its data is lost): %s on %s, %s",
				st.Mount, st.Loop, st.Backing)}
			if err := confirmPlan(c.Context(), "lab down", plan, "perfbisect lab up builds a new one", yes, dryRun, stdin, stdout); err != nil {
				return err
			}
			if err := lab.Down(context.WithoutCancel(c.Context())); err != nil {
				return failure(err)
			}
			fmt.Fprintln(stdout, "lab: down, nothing left behind")
			return nil
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "do it without asking")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be done, do nothing")
	return c
}

// newLabControllerCmd is the background process that drains and refills
// gp2 credits; lab up starts it and lab down stops it.
func newLabControllerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "controller",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			if err := lab.RunController(ctx, time.Second); err != nil && ctx.Err() == nil {
				return failure(err)
			}
			return nil
		},
	}
}

// startController starts `perfbisect lab controller` detached (its own
// session, away from this terminal, no parent-death signal): it keeps the
// credits after lab up has returned, until lab down stops it. Its pid and
// start time go into the lab's state. The controller records them itself
// as it starts; recording them here too covers one that dies first, and
// the start time keeps lab down from signalling whoever gets its pid next.
func startController() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	pid, err := proc.Detach(proc.Cmd{Name: "the lab's controller", Path: self, Args: []string{"lab", "controller"}})
	if err != nil {
		return err
	}
	// Not reaped before this process exits, so it is there to read.
	start, err := proc.StartTime(pid)
	if err != nil {
		return fmt.Errorf("the lab's controller (pid %d): %v", pid, err)
	}
	_, err = lab.Update(func(s *lab.State) error {
		s.ControllerPID, s.ControllerStart = pid, start
		return nil
	})
	return err
}

// speedNote says, in a plan, that the limits run scaled.
func speedNote(k float64) string {
	if k == 1 {
		return ""
	}
	return fmt.Sprintf(", run at %gx", k)
}
