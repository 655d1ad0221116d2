package rollout

func (r *Run) findStage(name string) *StageStatus {
	for i := range r.Status.Stages {
		if r.Status.Stages[i].Name == name {
			return &r.Status.Stages[i]
		}
	}
	return nil
}

// findGroup finds a group by name; an implicit group (selectors.go) is found by its stage, not here.
func (r *Run) findGroup(name string) (*StageStatus, *GroupStatus) {
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		for j := range st.Groups {
			if st.Groups[j].Name == name && !st.Groups[j].Implicit {
				return st, &st.Groups[j]
			}
		}
	}
	return nil, nil
}

func (r *Run) findMember(name string) (*StageStatus, *GroupStatus, *MemberStatus) {
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		for j := range st.Groups {
			g := &st.Groups[j]
			for k := range g.Members {
				if g.Members[k].Name == name {
					return st, g, &g.Members[k]
				}
			}
		}
	}
	return nil, nil, nil
}

// Gate returns the gate ref points at, or nil.
func (r *Run) Gate(ref GateRef) *GateStatus {
	var gs []GateStatus
	if ref.Group == "" {
		st := r.findStage(ref.Stage)
		if st == nil {
			return nil
		}
		gs = st.BeforeGates
		if ref.Timing == After {
			gs = st.AfterGates
		}
	} else {
		st, g := r.findGroup(ref.Group)
		if g == nil || (ref.Stage != "" && st.Name != ref.Stage) {
			return nil
		}
		gs = g.BeforeGates
		if ref.Timing == After {
			gs = g.AfterGates
		}
	}
	if ref.Index < 0 || ref.Index >= len(gs) {
		return nil
	}
	return &gs[ref.Index]
}
