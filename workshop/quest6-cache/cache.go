package main

import "time"

// cacheTTL is how long the sketch trusts an answer it has cached.
const cacheTTL = 5 * time.Second

// ListByRole answers GET /users?role=role from a cache, as the "caching"
// sketch at the end of the case study does: a map from role to answer, a
// timestamp, and a lookup in the map while the timestamp is recent enough.
// The sketch caches the list of users; this translation caches the encoded
// body, because in this project the encoding is most of a request's work.
//
// This is the starting point of side quest 6 in WORKSHOP.md. It has bugs,
// the shared suites catch them (start_test.go proves it), and finding and
// fixing them is the exercise.
func (s *Store) ListByRole(role string) []byte {
	now := time.Now()
	if now.Sub(s.cacheTime) < cacheTTL {
		if body, ok := s.cache[role]; ok {
			return body
		}
	}
	body := encodeUsers(s.findByRole(role))
	s.cache[role] = body
	s.cacheTime = now
	return body
}
