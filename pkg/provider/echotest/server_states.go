package echotest

// Restart stops instance id with its files, as a machine stopped while
// idle: it is starting again, for StartLooks looks, from the next look.
func (s *Server) Restart(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.all[id]; b != nil {
		b.transit.Go(s.StartLooks, stateStarting, stateReady)
	}
}

// Lose forgets instance id without a delete, as a host that lost it: from
// now on it is answered as no instance.
func (s *Server) Lose(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.all, id)
}
