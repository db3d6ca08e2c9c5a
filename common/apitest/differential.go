package apitest

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// NewPlain is an api.NewStage of the slowest obvious stage, package
// plain's store behind one mutex: Differential compares every stage with it.
func NewPlain(users []user.User) api.Stage {
	return plain.New(users)
}

// Differential's requests hit every kind many times (TestRandomSequencesCoverEveryKind),
// yet stay quick under -race at 10,000 users; a fuzz input chooses at most
// fuzzRequests, so that an iteration stays fast.
const (
	differentialSequences = 6
	differentialRequests  = 50 // per sequence, before the sweep
	fuzzRequests          = 64
)

// Differential sends random sequences of writes, reads and bad input, then
// a sweep that reads back all the writes touched, to a stage and to the
// plain stage over the 10,000 generated users, and fails at the first
// response that differs in status, a header or a byte of the body. So the
// stages that pass answer alike. go test -run 'TestDifferential/seed=3'
// replays one sequence.
func Differential(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	for seed := range uint64(differentialSequences) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			if err := compareWithPlain(newStage, users, RandomRequests(seed, differentialRequests, users)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// FuzzDifferential is Differential over 1,000 users, with the requests
// chosen by the fuzzer's input.
func FuzzDifferential(f *testing.F, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := compareWithPlain(newStage, users, sequence(data, fuzzRequests, users)); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzSeeds start with each kind of request, with plain and with varied
// choices after it, then a write followed by reads, then random inputs.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	for kind := range opKind(numOpKinds) {
		seeds = append(seeds, []byte{kindByte(kind)},
			[]byte{kindByte(kind), 0xff, 0x80, 7, 3, 1, 200, 9, 4, 2, 0x41, 0xe2, 0x80, 0xa8})
	}
	seeds = append(seeds, writeThenReadSeed())
	return append(seeds, randomBytes(1, 2, 64), randomBytes(1, 3, 256), randomBytes(1, 4, 1024))
}

// writeThenReadSeed is a POST of zz-new-1 with the role brand-new, the list
// of brand-new, a DELETE of zz-new-1, and the list again.
func writeThenReadSeed() []byte {
	return []byte{
		kindByte(opAddNew), 0, 0, 0, 0, 0, 1, 0, // id zz-new-1, plain fields, one role: newRoles[0]
		kindByte(opListNew), 0,
		kindByte(opDelete), 0, 0, // the first id POSTed
		kindByte(opListNew), 0,
	}
}

// compareWithPlain sends reqs to a stage and to the plain stage, each over
// its own copy of users, and describes the first response that differs.
func compareWithPlain(newStage api.NewStage, users []user.User, reqs []Request) error {
	stageUsers, plainUsers := cloneUsers(users), cloneUsers(users)
	stage := api.NewHandler(newStage(stageUsers), stageUsers)
	plainServer := api.NewHandler(NewPlain(plainUsers), plainUsers)
	statuses := make([]int, 0, len(reqs)) // the plain stage's, which the stage matched so far
	for i, r := range reqs {
		got := Do(stage, r.Method, r.Target, r.Body)
		want := Do(plainServer, r.Method, r.Target, r.Body)
		statuses = append(statuses, want.Code)
		if diff := responseDiff(got, want); diff != "" {
			lastRefused, list := history(reqs[:i+1], statuses)
			return fmt.Errorf("request %d of %d, %s %s, differs from the plain stage: %s%s\nthe requests so far:\n%s",
				i+1, len(reqs), r.kind, r, diff, lastRefused, list)
		}
	}
	return nil
}

// history lists reqs, marking the refused writes (those answered 400 or
// more, which must have changed nothing) by their status, and names the
// last one before the failing request, the last of reqs: a stage that
// changed something on one shows it only at a later read.
func history(reqs []Request, statuses []int) (lastRefused, list string) {
	var s strings.Builder
	for i, r := range reqs {
		refused := ""
		if r.Method != "GET" && r.Method != "HEAD" && statuses[i] >= 400 {
			refused = fmt.Sprintf(" (refused: %d)", statuses[i])
			if i < len(reqs)-1 {
				lastRefused = fmt.Sprintf("\nthe last write refused before it: request %d, %s %s (%d)", i+1, r.kind, r, statuses[i])
			}
		}
		fmt.Fprintf(&s, "%4d. %-11s %s%s\n", i+1, r.kind, r, refused)
	}
	return lastRefused, s.String()
}

// responseDiff describes how got differs from want, or returns "". The
// body comes first: when it is wrong, its Content-Length usually is too.
func responseDiff(got, want *httptest.ResponseRecorder) string {
	if got.Code != want.Code {
		return fmt.Sprintf("status %d, want %d\n got body: %.300q\nwant body: %.300q", got.Code, want.Code, got.Body, want.Body)
	}
	if g, w := got.Body.Bytes(), want.Body.Bytes(); !bytes.Equal(g, w) {
		return "the body differs: " + ListMismatch(g, w)
	}
	for _, h := range []http.Header{got.Header(), want.Header()} {
		for _, key := range slices.Sorted(maps.Keys(h)) {
			if g, w := got.Header().Values(key), want.Header().Values(key); !slices.Equal(g, w) {
				return fmt.Sprintf("header %s is %q, want %q", key, g, w)
			}
		}
	}
	return ""
}

// cloneUsers copies users and their roles, which a stage may change.
func cloneUsers(users []user.User) []user.User {
	c := slices.Clone(users)
	for i := range c {
		c[i].Roles = slices.Clone(c[i].Roles)
	}
	return c
}

// Request is one step of a differential sequence; crosscheck sends them to live servers.
type Request struct {
	Method, Target, Body string
	kind                 opKind
}

func (r Request) String() string {
	s := r.Method + " " + clip(r.Target, 160)
	if r.Body != "" {
		s += " " + strconv.Quote(clip(r.Body, 240))
	}
	return s
}

// opKind is what a request does. One choice in the input selects it.
type opKind uint8

const (
	opAddNew       opKind = iota // POST of a fresh id: 201
	opAddTaken                   // POST of a generated or added id: 409, or 201 once it was deleted
	opAddInvalid                 // POST of a body of BadRequests: 400
	opAddOversized               // POST of a body over api.MaxBodyBytes: 413
	opDelete                     // DELETE of a generated, added or unknown id: 204 or 404
	opGet                        // GET /users/{id} of the same kinds of ids: 200 or 404
	opListKnown                  // GET /users?role= with a role of the generated data
	opListNew                    // ... with a role that only POSTed users hold
	opListUnknown                // ... with a role nobody holds, often raw input bytes
	opListInvalid                // ... empty, too long, not UTF-8, repeated or missing: 400
	opSweep                      // the closing reads of everything the writes touched
)

const numOpKinds = int(opSweep) // the kinds a choice selects from

var opNames = [...]string{"AddNew", "AddTaken", "AddInvalid", "AddOversized", "Delete",
	"Get", "ListKnown", "ListNew", "ListUnknown", "ListInvalid", "Sweep"}

func (k opKind) String() string { return opNames[k] }

// opWeights are the odds of each kind, out of 32 so that a byte chooses
// without bias. Writes weigh most: a list wrong after a write is the bug
// that later stages can have.
var opWeights = [numOpKinds]int{
	opAddNew: 6, opAddTaken: 2, opAddInvalid: 3, opAddOversized: 1, opDelete: 5,
	opGet: 2, opListKnown: 4, opListNew: 4, opListUnknown: 3, opListInvalid: 2,
}

// kindByte is the smallest choice that selects kind.
func kindByte(kind opKind) byte {
	b := 0
	for _, w := range opWeights[:kind] {
		b += w
	}
	return byte(b)
}

// knownRoles occur in the generated data; lists larger than these are left
// to Run, as they are slow to encode under -race.
var knownRoles = []string{user.RoleAdmin, user.RoleEditor, "owner",
	"team-0000", "team-0007", "team-1999", "연구원", "운영자"}

// newRoles are held only by users that a sequence POSTs.
var newRoles = []string{"brand-new", "관리자", "rôle", "日本語", "emoji-😀",
	"<b>&amp;", "line\u2028break", `quo"te`, `back\slash`, "tab\there", "with space",
	"a+b=c&d", "Admin", "admin ", strings.Repeat("r", api.MaxRoleBytes),
	strings.Repeat("가", api.MaxRoleBytes/len("가"))}

// newNames exercise the encoder, invalid UTF-8 and the length limit included.
var newNames = []string{"New User", "새 사용자", `Jae "JJ" <b>Park</b> & Co`,
	`C:\new\user`, "ctl\x00\x01\x1f end", "sep\u2028\u2029end", "emoji 😀 ok",
	"DEL\x7f", "bad \xff\xfe utf8", strings.Repeat("n", api.MaxNameBytes)}

// unknownRoles are held by nobody, some of them by a hair.
var unknownRoles = []string{"nobody", "ADMIN", " admin", "admin\x00", "team-9999",
	"<&>\u2028", "관리", "viewer,editor", "*"}

// invalidLists and invalidAdds are the GET /users targets and the POST
// bodies of BadRequests, which the API layer refuses with 400. A target
// beyond MaxHeaderBytes is left out: a server over TCP (crosscheck sends
// these sequences too) refuses it with 431 before the API layer reads it.
var invalidLists, invalidAdds = func() (lists, adds []string) {
	for _, bad := range BadRequests() {
		switch {
		case bad.Status != 400 || len(bad.Target) > api.MaxHeaderBytes:
		case bad.Method == "GET":
			lists = append(lists, bad.Target)
		default:
			adds = append(adds, bad.Body)
		}
	}
	return lists, adds
}()

// RandomRequests returns n requests drawn from seed, then the sweep: the
// sequence that Differential sends, and crosscheck to live servers.
func RandomRequests(seed uint64, n int, users []user.User) []Request {
	return sequence(randomBytes(seed, 0, 256*n), n, users) // more bytes than n requests read
}

func randomBytes(seed1, seed2 uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// sequence returns up to n requests that data chooses, then the sweep.
func sequence(data []byte, n int, users []user.User) []Request {
	s := &sequencer{data: data, users: users, touched: map[string][]string{}}
	var reqs []Request
	for len(s.data) > 0 && len(reqs) < n {
		reqs = append(reqs, s.next())
	}
	return append(reqs, s.sweep()...)
}

// sequencer turns the bytes of data, one choice at a time, into requests
// against a stage holding users.
type sequencer struct {
	data    []byte
	users   []user.User // the generated users, read only
	added   []string    // ids of POSTed users, in order
	fresh   int         // numbers the new ids
	touched map[string][]string
}

// byte returns the next choice; exhausted data reads as zeros.
func (s *sequencer) byte() byte {
	if len(s.data) == 0 {
		return 0
	}
	b := s.data[0]
	s.data = s.data[1:]
	return b
}

// intn returns a number in [0, n), read from as few bytes as cover n.
func (s *sequencer) intn(n int) int {
	v, span := 0, 1
	for span < n {
		v = v<<8 | int(s.byte())
		span <<= 8
	}
	return v % n
}

// raw returns up to max bytes of the data itself: the fuzzer's own strings.
func (s *sequencer) raw(max int) string {
	b := make([]byte, s.intn(max+1))
	for i := range b {
		b[i] = s.byte()
	}
	return string(b)
}

func (s *sequencer) pick(from []string) string { return from[s.intn(len(from))] }

func (s *sequencer) next() Request {
	switch kind := s.kind(); kind {
	case opAddNew:
		return s.post(kind, s.newUser(s.freshID()))
	case opAddTaken:
		return s.post(kind, s.newUser(s.takenID()))
	case opAddInvalid:
		return Request{"POST", "/users", s.pick(invalidAdds), kind}
	case opAddOversized:
		u := s.newUser(s.freshID())
		s.touch(u.ID, u.Roles)
		u.Name = strings.Repeat(" ", api.MaxBodyBytes)
		return Request{"POST", "/users", string(mustMarshal(u)), kind}
	case opDelete:
		id := s.anyID()
		s.touch(id, nil)
		return Request{"DELETE", "/users/" + url.PathEscape(id), "", kind}
	case opGet:
		return Request{"GET", "/users/" + url.PathEscape(s.anyID()), "", kind}
	case opListKnown:
		return Request{"GET", ListTarget(s.pick(knownRoles)), "", kind}
	case opListNew:
		return Request{"GET", ListTarget(s.pick(newRoles)), "", kind}
	case opListUnknown:
		if s.intn(2) == 0 {
			return Request{"GET", ListTarget(s.pick(unknownRoles)), "", kind}
		}
		return Request{"GET", ListTarget(s.raw(api.MaxRoleBytes + 8)), "", kind}
	default:
		return Request{"GET", s.pick(invalidLists), "", opListInvalid}
	}
}

// kind chooses the kind of the next request by opWeights.
func (s *sequencer) kind() opKind {
	x := s.intn(32)
	for kind, w := range opWeights {
		if x < w {
			return opKind(kind)
		}
		x -= w
	}
	panic("unreachable: opWeights do not add up to 32")
}

func (s *sequencer) post(kind opKind, u user.User) Request {
	s.touch(u.ID, u.Roles)
	s.added = append(s.added, u.ID)
	return Request{"POST", "/users", string(mustMarshal(u)), kind}
}

// newUser returns a valid user with id. Zero choices give the plainest
// user, which keeps hand-written seeds short.
func (s *sequencer) newUser(id string) user.User {
	u := user.User{ID: id, Name: s.pick(newNames), Email: "new." + id + "@example.com"}
	if s.intn(4) == 3 {
		u.Name = "raw " + s.raw(24) // the prefix keeps it non-empty
	}
	if s.intn(4) == 3 {
		u.Email = strings.Repeat("e", api.MaxEmailBytes-len("@example.com")) + "@example.com"
	}
	// A repeated draw is skipped, not redrawn: exhausted data repeats forever.
	for range 1 + s.intn(4) {
		from := knownRoles
		if s.intn(2) == 1 {
			from = newRoles
		}
		if r := s.pick(from); !slices.Contains(u.Roles, r) {
			u.Roles = append(u.Roles, r)
		}
	}
	return u
}

// freshID returns an id nobody has used, sorting among the generated ids,
// before them, or after them, so that inserts land at every position.
func (s *sequencer) freshID() string {
	s.fresh++
	n := strconv.Itoa(s.fresh)
	switch s.intn(3) {
	case 0:
		return "zz-new-" + n
	case 1:
		return "A-new-" + n
	default:
		return user.FormatID(s.intn(len(s.users))) + "-n" + n
	}
}

// takenID returns an id that was generated or POSTed.
func (s *sequencer) takenID() string {
	if len(s.added) > 0 && s.intn(2) == 0 {
		return s.pick(s.added)
	}
	return user.FormatID(s.intn(len(s.users)))
}

// anyID returns a taken id (most often, so that most DELETEs succeed), an
// id that was never used but looks like one, or raw bytes.
func (s *sequencer) anyID() string {
	switch s.intn(8) {
	case 6:
		return user.FormatID(s.intn(len(s.users))) + "x"
	case 7:
		return s.raw(24)
	default:
		return s.takenID()
	}
}

// touch records that a write may have changed id and the lists of roles,
// and, when id is a generated user's, the lists of its knownRoles.
func (s *sequencer) touch(id string, roles []string) {
	s.touched[id] = append(s.touched[id], roles...)
	i, generated := slices.BinarySearchFunc(s.users, id, func(u user.User, id string) int {
		return strings.Compare(u.ID, id)
	})
	if generated {
		for _, r := range s.users[i].Roles {
			if slices.Contains(knownRoles, r) {
				s.touched[id] = append(s.touched[id], r)
			}
		}
	}
}

// sweep reads back every id and list that a write touched, so that a lost
// write shows even when no later request read it.
func (s *sequencer) sweep() []Request {
	ids := slices.Sorted(maps.Keys(s.touched))
	var roles []string
	for _, rs := range s.touched {
		roles = append(roles, rs...)
	}
	slices.Sort(roles)
	var reqs []Request
	for _, id := range ids {
		reqs = append(reqs, Request{"GET", "/users/" + url.PathEscape(id), "", opSweep})
	}
	for _, role := range slices.Compact(roles) {
		reqs = append(reqs, Request{"GET", ListTarget(role), "", opSweep})
	}
	return reqs
}
