package sso

import "time"

// SetClock makes the service read the time from now.
func SetClock(s *Service, now func() time.Time) { s.now = now }
