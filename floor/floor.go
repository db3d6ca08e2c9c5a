// The floor is the limit of this project's HTTP path: a stage that has
// every answer of GET /users?role=R ready before the request arrives. Its
// ListByRole is a map lookup under a read lock, so what remains of a request
// is what every stage pays anyway: Echo's routing, the API layer, and
// writing the bytes. The API layer is the query's validation, the list's
// size from the ledger, a reservation of its bytes (two counters, for the
// whole server and for the client), and a pooled writer that paces the
// body; it allocates only the Content-Length header (and, in a benchmark,
// which has no server to know the client's connection, the client's
// record), so it costs less than a bare Echo handler that reads the role
// with Echo's QueryParam (see BenchmarkBare), and its cost does not grow
// with the users stored. A stage's time minus the floor's is the time its own lookup
// and encoding cost, and no stage can go below the floor on this path.
//
// The floor is not a fake: writes keep its answers right, so it passes the
// same conformance suite as every stage. A write files the user into the
// lists of its roles (roles.go), shifting the pointers of one run of a
// list rather than of the whole list, and drops those roles' bodies. The
// next read of such a role builds its body again, once, however many writes
// came before it, and the reads after that are lookups again. Rebuilding
// every body a write touches in the write itself would make N writes into
// one role cost N squared, and make every read wait for them.
//
// The trade: the first read of a role after a write copies every user's
// bytes into a new body (stage 6 does that on every read, but a block at a
// time), and it does so under the write lock, so that the role cannot change
// meanwhile; reads of other roles wait for it. The floor pays off only where
// reads vastly outnumber writes, which is why it is a yardstick here and not
// the last stage. The read benchmarks write nothing, so there every read is
// a lookup of bytes built in advance.

package main

import (
	"encoding/json"
	"sync"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// emptyList is the body for a role nobody holds. It is shared by every such
// request; nobody writes into a body once it is handed out.
var emptyList = []byte("[]")

// Floor holds, for every role, the users holding it and the body that
// encoding/json.Marshal gives for them.
type Floor struct {
	mu    sync.RWMutex
	byID  map[string]*encodedUser
	roles map[string]*inPlaceRole // a role nobody holds is not in the map
}

// encodedUser is a user and its JSON, encoded once when the user is stored.
type encodedUser struct {
	user user.User
	json []byte
}

// New returns a Floor holding users, which are in ascending id order, and
// builds the body of every role they hold once, here.
func New(users []user.User) api.Stage {
	f := &Floor{byID: make(map[string]*encodedUser, len(users))}
	holders := map[string][]*encodedUser{}
	for _, u := range users {
		s := newEncodedUser(u)
		f.byID[u.ID] = s
		for _, r := range u.Roles {
			holders[r] = append(holders[r], s) // users come in id order: no sorting
		}
	}
	f.roles = make(map[string]*inPlaceRole, len(holders))
	for r, users := range holders {
		l := newInPlaceRole(users)
		l.build()
		f.roles[r] = l
	}
	return f
}

func newEncodedUser(u user.User) *encodedUser {
	b, err := json.Marshal(&u)
	if err != nil {
		panic(err) // unreachable: a User has no type that Marshal rejects
	}
	return &encodedUser{user: u, json: b}
}

// ListByRole returns the stored body of role: no lookup, no encoding,
// unless a write has dropped it since the last read.
func (f *Floor) ListByRole(role string) []byte {
	f.mu.RLock()
	l, ok := f.roles[role]
	var body []byte
	if ok {
		body = l.body
	}
	f.mu.RUnlock()
	switch {
	case !ok:
		return emptyList
	case body != nil:
		return body
	}
	return f.rebuild(role)
}

// rebuild builds the body of role under the write lock, so that no write
// changes its users meanwhile. Many readers may find the body gone at once;
// the first to take the lock builds it, and the others find it built. A
// write between the read lock and this one may have emptied the role.
func (f *Floor) rebuild(role string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.roles[role]
	if !ok {
		return emptyList
	}
	if l.body == nil {
		l.build()
	}
	return l.body
}

// Get returns the user with id. The Roles slice is shared with the store,
// which is safe because stored users are replaced, never modified.
func (f *Floor) Get(id string) (user.User, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	s, ok := f.byID[id]
	if !ok {
		return user.User{}, false
	}
	return s.user, true
}

// Add stores u and files it in the list of each of its roles, whose bodies
// the next reads build again. u is encoded before the lock is taken, so
// that readers do not wait for the encoding.
func (f *Floor) Add(u user.User) bool {
	s := newEncodedUser(u)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, taken := f.byID[u.ID]; taken {
		return false
	}
	f.byID[u.ID] = s
	for _, r := range u.Roles {
		l := f.roles[r]
		if l == nil {
			l = &inPlaceRole{}
			f.roles[r] = l
		}
		l.insert(s)
	}
	return true
}

// Delete removes the user with id from the list of each of its roles, whose
// bodies the next reads build again; a role left with nobody is forgotten,
// and so answers "[]".
func (f *Floor) Delete(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.byID[id]
	if !ok {
		return false
	}
	delete(f.byID, id)
	for _, r := range s.user.Roles {
		l := f.roles[r]
		l.remove(id)
		if l.empty() {
			delete(f.roles, r)
		}
	}
	return true
}
