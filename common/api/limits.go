package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"example.com/userperf/common/user"
)

// Limits are what clients may make a server hold, in users and in bytes.
// The limits on one request are the constants in validate.go; these are on
// the sum of all of them.
type Limits struct {
	// MaxUsers is how many users the store may hold.
	MaxUsers int

	// MaxStoredBytes is how much the stored users may cost, counted by
	// cost: a limit on users alone lets one user of 15 KB of JSON and 32
	// roles weigh as much as 600 ordinary ones.
	MaxStoredBytes int64

	// MaxInFlightBytes is how many bytes of list answers may be being built
	// or sent at once. A list takes its size from this before the stage
	// builds it, and gives it back once it is sent; a list that finds too
	// little left is answered with 503. A list larger than the whole limit
	// takes all of it, and so is built alone. POST bodies being read take
	// theirs from the same limit (see create).
	MaxInFlightBytes int64

	// MaxClientBytes is how many of MaxInFlightBytes the requests of one
	// client (one remote address) may hold at once; a request beyond it is
	// answered with 503. Small requests may go a little past it (see
	// smallReservation), so that a client holding its share is still
	// served a user or a small list. A reservation larger than the share
	// counts as the whole share.
	MaxClientBytes int64

	// MaxConns is how many connections the API serves at once; the next
	// ones wait in the kernel's queue until one closes. Each open
	// connection may hold up to connBytes (headers being read, buffers, its
	// goroutine) whatever its client sends, so the cap bounds what
	// connections hold in all.
	MaxConns int
}

// DefaultLimits are the limits of a server started by Main, unless its
// flags say otherwise, and of NewHandler. The 100,000 users are ten times
// the default data set, and would count about 85 MB if they were like it,
// well within the 256 MiB. Users of the largest kind (32 roles of 64
// bytes, a 256-byte name and a 254-byte email, all of characters that JSON
// writes as \u003c) count 512 KB each, so some 500 fit. A stage holds what
// they count at most, plus its pointers and maps; the lists in flight add
// up to 128 MiB, of which one client may hold a quarter, and the 4,096
// connections up to 4,096 x connBytes, 256 MiB. Main gives the garbage collector a soft limit (memoryLimit), so
// that it does not let the heap grow to twice what is live.
var DefaultLimits = Limits{
	MaxUsers:         DefaultMaxUsers,
	MaxStoredBytes:   256 << 20,
	MaxInFlightBytes: 128 << 20,
	MaxClientBytes:   128 << 20 / 4,
	MaxConns:         4096,
}

// connBytes is the most that one open connection can make the server hold
// while its request arrives, rounded up: the header bytes, read into
// net/http's 4 KiB buffer and copied into the header map (MaxHeaderBytes
// twice), the 4 KiB buffer it writes through, and the goroutine serving it,
// whose stack starts at 8 KiB and grows while it parses. A body being read
// is counted against MaxInFlightBytes instead.
const connBytes = 64 << 10

// programBytes is what a stage holds beside what the limits count: its
// code, the runtime, and the pointers and maps of its index.
const programBytes = 64 << 20

// memoryLimit is the soft limit given to the garbage collector: what the
// stored users and the lists and bodies in flight count, and the program.
// Without it the collector lets the heap grow to twice what is live before
// it collects, so a stage that keeps every role's JSON (stage 6, the
// floor) could hold twice MaxStoredBytes and the lists in flight twice
// over; with it, the heap is collected as it nears what those count. The
// connections' own memory (connBytes each) is left out: it is live only
// while requests arrive. It is a soft limit: when more is live, as when
// the store is full and every connection sends headers, the collector
// runs more often (using at most half of the CPU) rather than letting the
// heap grow past twice what is live, and nothing fails.
func memoryLimit(limits Limits) int64 {
	return limits.MaxStoredBytes + limits.MaxInFlightBytes + programBytes
}

// cost is what a user whose JSON is encoded bytes long, holding roles
// roles, counts against MaxStoredBytes: the JSON once, for the user
// itself, and once per role, for the role's list. That is the most any
// stage keeps: stage 0 keeps the user alone, the later stages keep it once
// and point to it from every role (stage 5 beside its JSON), and stage 6
// and the floor keep its JSON in each role's list. Counting the most for every stage keeps the same
// requests refused in every stage.
func cost(encoded, roles int) int64 { return int64(encoded) * int64(1+roles) }

// ledger counts what a stage holds against its limits, and per role the
// size of the list body, which encoding/json.Marshal makes '[', the users'
// encodings joined by commas, and ']'. Knowing that size lets a HEAD answer
// without asking the stage, and a GET reserve its bytes before the stage
// starts building the body.
//
// Every write goes through the ledger, which holds its lock around both the
// stage's Add or Delete and its own count. So whoever holds the read lock
// sees the two agree: HEAD's Content-Length is the length of the body that
// a GET would get at that moment. A GET reads its size under the read lock
// and releases it before the stage builds the body, because holding it
// through the build would make every write wait for the slowest list in
// flight; the writes that land in between change the body by one user
// each, which the reserve does not see.
type ledger struct {
	stage  Stage
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

// body is the length of the role's list body: the encodings, a comma
// between each two, and the brackets.
func (r roleSize) body() int64 {
	if r.users == 0 {
		return int64(len("[]"))
	}
	return r.json + int64(r.users-1) + 2
}

// newLedger counts the users that stage was built with.
func newLedger(stage Stage, users []user.User, limits Limits) *ledger {
	l := &ledger{stage: stage, limits: limits, roles: map[string]roleSize{}}
	for i := range users {
		l.count(&users[i], encodedSize(&users[i]), +1)
	}
	return l
}

// encodedSize is the length of u's JSON.
func encodedSize(u *user.User) int {
	b, err := json.Marshal(u)
	if err != nil {
		panic(err) // unreachable: a User holds nothing Marshal refuses
	}
	return len(b)
}

// count adds (sign +1) or removes (-1) u, whose JSON is encoded bytes
// long; l.mu is held for writing, or l is not shared yet.
func (l *ledger) count(u *user.User, encoded, sign int) {
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

// listSize is the length of the body of GET /users?role=role.
func (l *ledger) listSize(role string) int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.roles[role].body()
}

// add stores u, whose JSON is encoded bytes long, unless the store has no
// room for it or its id is taken: then it returns the 409 that says which.
//
// Both refusals are 409 Conflict, like a taken id: the request is fine
// (not 400, and 413 would blame its size, which is small), but the store's
// state refuses it, and a DELETE changes that. 507 Insufficient Storage
// would say the same, but as a 5xx it reads as the server's fault, while
// the limit is one the server keeps on purpose.
func (l *ledger) add(u user.User, encoded int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch c := cost(encoded, len(u.Roles)); {
	case l.users >= l.limits.MaxUsers:
		return echo.NewHTTPError(http.StatusConflict,
			fmt.Sprintf("the store is full: it holds its limit of %d users; delete one first", l.limits.MaxUsers))
	case l.stored+c > l.limits.MaxStoredBytes:
		return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("the store is full: this user would count %d bytes "+
			"(its JSON once, and once more for each of its %d roles), and only %d of the %d bytes allowed are left; delete users first",
			c, len(u.Roles), max(0, l.limits.MaxStoredBytes-l.stored), l.limits.MaxStoredBytes))
	}
	// Counted before Add, which owns u from then on, and taken back if
	// Add refuses it; nobody sees the difference under the lock.
	l.count(&u, encoded, +1)
	if !l.stage.Add(u) {
		l.count(&u, encoded, -1)
		return echo.NewHTTPError(http.StatusConflict, "a user with id "+quoteJSON(u.ID)+" already exists")
	}
	return nil
}

// delete removes the user with id and reports whether there was one. It
// asks the stage for the user first, to know what to take off the count;
// under the lock, nobody can change the user in between.
func (l *ledger) delete(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.stage.Get(id)
	if !ok || !l.stage.Delete(id) {
		return false
	}
	l.count(&u, encodedSize(&u), -1)
	return true
}
