package knob

import (
	"errors"
	"strings"
	"testing"
)

func TestManual(t *testing.T) {
	ctx := testCtx(t)
	op := &operator{}
	k := newKnob(t, "manual", Settings{
		"instructions": "Stop mysqld\nBoot the previous AMI\n",
		"undo":         "Boot the current AMI",
	})
	w := spec(t.TempDir())
	plan, err := k.Plan(ctx, Env{Operator: op}, w)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if strings.Join(plan.Do, "|") != "Stop mysqld|Boot the previous AMI" || strings.Join(plan.Undo, "|") != "Boot the current AMI" {
		t.Errorf("Plan = %q / %q", plan.Do, plan.Undo)
	}
	if len(op.calls) != 0 {
		t.Fatalf("Plan asked the operator")
	}
	got, c, revert, err := k.Apply(ctx, Env{Operator: op}, w)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if got != w || c.After != "done by the operator" {
		t.Errorf("Apply = %+v, %+v", got, c)
	}
	if len(op.calls) != 1 || strings.Join(op.calls[0].lines, "|") != "Stop mysqld|Boot the previous AMI" || op.calls[0].title == "" {
		t.Fatalf("operator was asked %+v", op.calls)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if len(op.calls) != 2 || strings.Join(op.calls[1].lines, "|") != "Boot the current AMI" {
		t.Errorf("revert asked %+v, want the undo instructions", op.calls[1:])
	}
	if err := revert(ctx); err != nil || len(op.calls) != 2 {
		t.Errorf("second revert: %v, %d calls; want a no-op", err, len(op.calls))
	}
}

func TestManualDeclined(t *testing.T) {
	ctx := testCtx(t)
	k := newKnob(t, "manual", Settings{"instructions": "Boot the previous AMI", "undo": "Boot the current AMI"})

	_, _, revert, err := k.Apply(ctx, Env{Operator: &operator{answers: []bool{false}}}, spec(""))
	if !errors.Is(err, ErrDeclined) || revert != nil {
		t.Errorf("declined Apply = %v (revert %v), want ErrDeclined and no revert", err, revert != nil)
	}

	_, _, _, err = k.Apply(ctx, Env{Operator: &operator{err: errors.New("terminal closed")}}, spec(""))
	wantErr(t, err, "manual: asking the operator", "terminal closed")

	op := &operator{answers: []bool{true, false, true}}
	_, _, revert, err = k.Apply(ctx, Env{Operator: op}, spec(""))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	err = revert(ctx)
	wantErr(t, err, "the change made by hand is still in place", "declined", "(put it back by hand: Boot the current AMI)")
	if err := revert(ctx); err != nil {
		t.Errorf("revert, accepted the second time: %v", err)
	}
}

func TestManualNoUndo(t *testing.T) {
	ctx := testCtx(t)
	op := &operator{}
	_, c, revert, err := newKnob(t, "manual", Settings{"instructions": "Reboot"}).Apply(ctx, Env{Operator: op}, spec(""))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if c.Undo[0] != "nothing: no undo instructions were given" {
		t.Errorf("Undo = %q", c.Undo)
	}
	if err := revert(ctx); err != nil || len(op.calls) != 1 {
		t.Errorf("revert: %v after %d calls; want nothing asked", err, len(op.calls))
	}
}

func TestManualNoOperator(t *testing.T) {
	for _, name := range []string{"manual", "host"} {
		k := newKnob(t, name, Settings{"instructions": "x"})
		_, err := k.Plan(testCtx(t), Env{}, spec(""))
		wantUnavailable(t, err, "nobody to ask: run interactively or drop this step")
		_, _, _, err = k.Apply(testCtx(t), Env{}, spec(""))
		var u *Unavailable
		if !errors.As(err, &u) || u.Knob != name {
			t.Errorf("%s Apply without an operator = %v, want *Unavailable", name, err)
		}
	}
}

func TestHost(t *testing.T) {
	ctx := testCtx(t)
	op := &operator{}
	_, c, revert, err := newKnob(t, "host", nil).Apply(ctx, Env{Operator: op}, spec(""))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := "Run the same probe on a bare host outside the cluster (perfbisect probe --json > bare.jsonl) and come back"
	if len(op.calls) != 1 || strings.Join(op.calls[0].lines, "|") != want || c.Settings["instructions"] != want {
		t.Errorf("operator asked %+v (settings %v), want the default instructions", op.calls, c.Settings)
	}
	if err := revert(ctx); err != nil || len(op.calls) != 1 {
		t.Errorf("revert: %v, %d calls", err, len(op.calls))
	}

	op = &operator{answers: []bool{false}}
	_, _, _, err = newKnob(t, "host", Settings{"instructions": "ssh bare-1\nperfbisect probe"}).Apply(ctx, Env{Operator: op}, spec(""))
	if !errors.Is(err, ErrDeclined) || strings.Join(op.calls[0].lines, "|") != "ssh bare-1|perfbisect probe" {
		t.Errorf("declined host = %v after %+v", err, op.calls)
	}
}
