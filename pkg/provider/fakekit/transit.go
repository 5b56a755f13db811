package fakekit

// Transit is an instance's state as a provider's control plane shows it,
// on its way through states: each look at it (a GET) counts down toward
// the next state to come. The zero value is in the empty state, going
// nowhere.
type Transit struct {
	// State is the state shown now.
	State string
	ahead []string // the states to come
	per   int      // looks each state lasts
	left  int      // looks left before the next state
}

// Go sets it on its way through states, starting in the first; each lasts
// per looks (at least one).
func (t *Transit) Go(per int, states ...string) {
	if len(states) == 0 {
		return
	}
	t.State, t.ahead = states[0], states[1:]
	t.per = max(per, 1)
	t.left = t.per
}

// Set puts it in state now, with nothing to come.
func (t *Transit) Set(state string) {
	t.State, t.ahead = state, nil
}

// Moving reports whether it is on its way to another state.
func (t *Transit) Moving() bool { return len(t.ahead) > 0 }

// Look counts one look. When the look moves it on, it returns the state
// reached and true.
func (t *Transit) Look() (string, bool) {
	if !t.Moving() {
		return t.State, false
	}
	if t.left--; t.left > 0 {
		return t.State, false
	}
	t.State, t.ahead, t.left = t.ahead[0], t.ahead[1:], t.per
	return t.State, true
}
