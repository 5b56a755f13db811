package run

// A Step is a stage of a run start, reported as it begins.
type Step string

const (
	// StepProbing: the sandbox is asked whether it can be used.
	StepProbing Step = "probing"
	// StepReconnecting: the thread's instance (or a warm pool's) is
	// reconnected, and resumed when paused.
	StepReconnecting Step = "reconnecting"
	// StepWaiting: another run is making the thread's instance.
	StepWaiting Step = "waiting"
	// StepCreating: the provider is making a new instance.
	StepCreating Step = "creating"
	// StepInstalling: the default packages are being installed; the
	// installer's output follows as it is written.
	StepInstalling Step = "installing"
	// StepReady: the instance can be used; the run is being recorded.
	StepReady Step = "ready"
)

// Progress receives a run start's steps as they happen. Either function
// may be nil; calls are sequential.
type Progress struct {
	// OnStep is called as each step begins, with a line that describes it.
	OnStep func(step Step, detail string)
	// OnOutput receives the package installer's output as it is written.
	OnOutput func(text string)
}

func (p Progress) step(step Step, detail string) {
	if p.OnStep != nil {
		p.OnStep(step, detail)
	}
}

func (p Progress) output(text string) {
	if p.OnOutput != nil {
		p.OnOutput(text)
	}
}
