package guard

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/user"
)

// Store is what the ledger needs of a stage: its writes, and the user
// that a delete takes away.
type Store interface {
	Get(id string) (user.User, bool)
	Add(u user.User) bool
	Delete(id string) bool
}

// ErrIDTaken is Add's answer for a user whose id the store holds already.
var ErrIDTaken = errors.New("a user with this id already exists")

// Ledger counts what a stage holds against its limits, and per role what
// makes the size of the list body (see Guard.listSize). Knowing that size
// lets a HEAD answer without asking the stage, and a GET reserve its bytes
// before the stage starts building the body.
//
// Every write goes through the ledger, which holds its lock around both the
// stage's Add or Delete and its own count. So whoever holds the read lock
// sees the two agree: HEAD's Content-Length is the length of the body that
// a GET would get at that moment. A GET reads its size under the read lock
// and releases it before the stage builds the body, because holding it
// through the build would make every write wait for the slowest list in
// flight; the writes that land in between change the body by one user
// each, which the reserve does not see.
type Ledger struct {
	stage  Store
	limits Limits

	mu     sync.RWMutex
	users  int   // users stored
	stored int64 // what they cost
	roles  map[string]roleSize
}

// roleSize is what the ledger knows of one role's list.
type roleSize struct {
	users int   // users holding the role
	json  int64 // the bytes of their encodings, added up
}

// NewLedger counts the users that stage was built with, and the size of
// each role's list.
func NewLedger(stage Store, users []user.User, limits Limits) *Ledger {
	l := &Ledger{stage: stage, limits: limits, roles: map[string]roleSize{}}
	for i := range users {
		l.count(&users[i], +1)
	}
	return l
}

// jsonLen is the length of encoding/json.Marshal(u), counted without
// encoding it: a stage that encodes every user at start-up would otherwise
// have every user encoded twice.
func jsonLen(u *user.User) int {
	n := len(`{"id":,"name":,"email":,"roles":[]}`) + stringLen(u.ID) + stringLen(u.Name) + stringLen(u.Email)
	for i, r := range u.Roles {
		n += stringLen(r)
		if i > 0 {
			n++ // the comma
		}
	}
	return n
}

// stringLen is the length of s as encoding/json writes it, quotes
// included: HTML's <, > and & escaped, as Marshal does. Stored strings are
// valid UTF-8 (the API refuses others, and generated users are); a byte of
// invalid UTF-8, which Go versions write differently, counts as \ufffd.
func stringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t' || b == '\b' || b == '\f':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += len(`\u0000`)
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`)
		default:
			n += size
		}
		i += size
	}
	return n
}

// count adds (sign +1) or removes (-1) u; l.mu is held for writing, or l
// is not shared yet.
func (l *Ledger) count(u *user.User, sign int) {
	encoded := jsonLen(u)
	l.users += sign
	l.stored += int64(sign) * cost(encoded, len(u.Roles))
	for _, r := range u.Roles {
		size := l.roles[r]
		size.users += sign
		size.json += int64(sign * encoded)
		if size.users == 0 {
			delete(l.roles, r) // the ledger holds no role that nobody holds
			continue
		}
		l.roles[r] = size
	}
}

// Stored is what the users stored count against MaxStoredBytes.
func (l *Ledger) Stored() int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.stored
}

// Add stores u unless the store has no room for it, which it answers with
// a 409 that says why, or its id is taken (ErrIDTaken).
//
// Both refusals are 409 Conflict, like a taken id: the request is fine
// (not 400, and 413 would blame its size, which is small), but the store's
// state refuses it, and a DELETE changes that. 507 Insufficient Storage
// would say the same, but as a 5xx it reads as the server's fault, while
// the limit is one the server keeps on purpose.
func (l *Ledger) Add(u user.User) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch c := cost(jsonLen(&u), len(u.Roles)); {
	case l.users >= l.limits.MaxUsers:
		return echo.NewHTTPError(http.StatusConflict,
			fmt.Sprintf("the store is full: it holds its limit of %d users; delete one first", l.limits.MaxUsers))
	case l.stored+c > l.limits.MaxStoredBytes:
		return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("the store is full: this user would count %d bytes "+
			"(its JSON once, and once more and %d bytes for each of its %d roles), and only %d of the %d bytes allowed are left; delete users first",
			c, RoleBytes, len(u.Roles), max(0, l.limits.MaxStoredBytes-l.stored), l.limits.MaxStoredBytes))
	}
	// Counted before Add, which owns u from then on, and taken back if
	// Add refuses it; nobody sees the difference under the lock.
	l.count(&u, +1)
	if !l.stage.Add(u) {
		l.count(&u, -1)
		return ErrIDTaken
	}
	return nil
}

// Delete removes the user with id and reports whether there was one. It
// asks the stage for the user first, to know what to take off the count
// (its roles and length, counted without encoding it); under the lock,
// nobody can change the user in between.
func (l *Ledger) Delete(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.stage.Get(id)
	if !ok || !l.stage.Delete(id) {
		return false
	}
	l.count(&u, -1)
	return true
}
