package api

import "sync/atomic"

// userSlots counts the users a store holds against its limit. A POST takes
// a slot before it calls Stage.Add and gives it back if Add refuses; a
// DELETE that removed a user gives one back after Stage.Delete. So the count
// is never below the number of users stored, and two concurrent POSTs
// cannot both take the last slot, which a check of the count followed by
// Add could let them do. While writes are in flight the count can run
// ahead of the store, which only ever refuses a POST, never admits one too
// many.
type userSlots struct {
	used atomic.Int64
	max  int64
}

func newUserSlots(stored, max int) *userSlots {
	s := &userSlots{max: int64(max)}
	s.used.Store(int64(stored))
	return s
}

// take reserves a slot and reports whether there was one.
func (s *userSlots) take() bool {
	if s.used.Add(1) > s.max {
		s.used.Add(-1)
		return false
	}
	return true
}

// giveBack frees a slot.
func (s *userSlots) giveBack() { s.used.Add(-1) }
