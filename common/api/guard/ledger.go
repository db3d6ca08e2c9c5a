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

// Store is what the ledger needs of a stage.
type Store interface {
	Get(id string) (user.User, bool)
	Add(u user.User) bool
	Delete(id string) bool
}

// ErrIDTaken is Add's answer for a user whose id the store holds already.
var ErrIDTaken = errors.New("a user with this id already exists")

// Ledger counts what a stage holds against its limits, and the size of
// each role's list, so that a HEAD answers without the stage and a GET
// reserves its bytes before the stage builds the list. Every write holds
// the ledger's lock around the stage's write and its count, so the two
// agree for whoever holds the read lock. A GET lets it go before the build:
// holding it would make every write wait for the slowest list.
type Ledger struct {
	stage  Store
	limits Limits

	mu     sync.RWMutex
	users  int
	stored int64 // what the users cost
	roles  map[string]roleSize
}

type roleSize struct {
	users int   // users holding the role
	json  int64 // their encodings' bytes, added up
}

// NewLedger counts the users that stage was built with.
func NewLedger(stage Store, users []user.User, limits Limits) *Ledger {
	l := &Ledger{stage: stage, limits: limits, roles: map[string]roleSize{}}
	for i := range users {
		l.count(&users[i], +1)
	}
	return l
}

// jsonLen is the length of encoding/json.Marshal(u), counted without
// encoding it twice at start-up.
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

// stringLen is the length of s as Marshal writes it, quotes and HTML
// escapes included. A byte of invalid UTF-8, which the API never stores,
// counts as \ufffd.
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

// count adds (sign +1) or removes (-1) u, with l.mu held.
func (l *Ledger) count(u *user.User, sign int) {
	encoded := jsonLen(u)
	l.users += sign
	l.stored += int64(sign) * cost(encoded, len(u.Roles))
	for _, r := range u.Roles {
		size := l.roles[r]
		size.users += sign
		size.json += int64(sign * encoded)
		if size.users == 0 {
			delete(l.roles, r)
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

// Add stores u, unless its id is taken (ErrIDTaken) or the store is full:
// 409, as the store's state refuses it and a DELETE changes that (a 507
// would read as the server's fault).
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
	l.count(&u, +1) // before Add, which owns u from then on
	if !l.stage.Add(u) {
		l.count(&u, -1)
		return ErrIDTaken
	}
	return nil
}

// Delete removes the user with id and reports whether there was one.
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
