package playbook

import (
	"slices"
	"strings"
)

// check verifies the playbook as a whole, so that any walk of it is sound:
// it has steps, the first and only the first reproduces the regression,
// every target names a step, every path ends in a conclusion (no cycles),
// and every step can be reached from the first.
func (d *decoder) check(p *Playbook, steps field, at []nodes) *Error {
	if len(p.Steps) == 0 {
		return d.at(steps.node(), "steps: no steps: want at least the one that reproduces the regression (reproduce: true)")
	}
	index := make(map[string]int, len(p.Steps))
	ids := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		index[s.ID], ids[i] = i, s.ID
	}

	for i, s := range p.Steps {
		for _, o := range Outcomes {
			if next := s.Target(o).Next; next != "" {
				if _, ok := index[next]; !ok {
					return d.at(at[i].target[o], "step %q: %s: no step %q (steps: %s)", s.ID, o, next, strings.Join(ids, ", "))
				}
			}
		}
	}

	for i, s := range p.Steps {
		if i > 0 && s.Reproduce {
			return d.at(at[i].reproduce, "step %q: reproduce: only the first step reproduces the regression (step %q is first): move this step to the top, or drop reproduce: true", s.ID, ids[0])
		}
	}
	if !p.Steps[0].Reproduce {
		blame := at[0].reproduce
		if blame == nil {
			blame = at[0].id
		}
		return d.at(blame, "step %q: the first step must reproduce the regression (reproduce: true): the walk starts there and judges every other step against it", ids[0])
	}

	// Depth-first, in file order: a target that leads back onto the path
	// being walked closes a cycle, named from where it starts.
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]int, len(p.Steps))
	var path []int
	var visit func(i int) *Error
	visit = func(i int) *Error {
		state[i] = onPath
		path = append(path, i)
		for _, o := range Outcomes {
			next := p.Steps[i].Target(o).Next
			if next == "" {
				continue
			}
			j := index[next]
			switch state[j] {
			case onPath:
				var cycle []string
				for _, k := range path[slices.Index(path, j):] {
					cycle = append(cycle, ids[k])
				}
				cycle = append(cycle, ids[j])
				return d.at(at[i].target[o], "step %q: %s: the walk goes round in a circle: %s (every path must end in a conclusion)",
					ids[i], o, strings.Join(cycle, " -> "))
			case unseen:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		return nil
	}
	for i := range p.Steps {
		if state[i] == unseen {
			if err := visit(i); err != nil {
				return err
			}
		}
	}

	reached := make([]bool, len(p.Steps))
	reached[0] = true
	queue := []int{0}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, o := range Outcomes {
			if next := p.Steps[i].Target(o).Next; next != "" && !reached[index[next]] {
				reached[index[next]] = true
				queue = append(queue, index[next])
			}
		}
	}
	for i, ok := range reached {
		if !ok {
			return d.at(at[i].id, "step %q is never reached: no persists, gone or unavailable leads to it from %q", ids[i], ids[0])
		}
	}
	return nil
}
