package main

// emptyList is the body for a role nobody holds. It is shared by every such
// answer, which the API allows: nobody writes into a body it was handed.
var emptyList = []byte("[]")

// ListByRole answers GET /users?role=role from a cache of encoded bodies,
// one per role, which is right after every write: Add and Delete drop the
// entries of the roles they change, so an entry never outlives the data it
// encodes and needs no expiry time. The sketch's single timestamp, which a
// miss on one role renewed for every other role, is gone rather than
// multiplied: a timestamp per role would still serve an answer up to five
// seconds old after a write.
//
// The store's read lock is held for the whole lookup, a miss included.
// Releasing it before storing the new body would let a write slip in
// between, drop the entry, and find the old body stored after it: stale
// until the next write to that role. Holding it costs a writer a wait of
// at most one encoding. Readers still run side by side; cacheMu only
// orders their short accesses to the map.
//
// Only roles somebody holds are cached. An entry for every role a client
// asks for would let anyone grow the cache without bound by asking for
// roles that do not exist.
func (s *Store) ListByRole(role string) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()

	s.cacheMu.Lock()
	body, ok := s.cache[role]
	s.cacheMu.Unlock()
	if ok {
		return body
	}
	if len(s.byRole[role]) == 0 {
		return emptyList
	}
	body = encodeUsers(s.findByRole(role))
	s.cacheMu.Lock()
	s.cache[role] = body
	s.cacheMu.Unlock()
	return body
}
