package apitest

import (
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// choices is where a sequence's decisions come from: the bytes of a fuzz
// input, which run out, or a seeded random source, which does not.
type choices struct {
	data []byte
	rng  *rand.Rand
}

func (c *choices) done() bool { return c.rng == nil && len(c.data) == 0 }

// byte returns the next choice; an exhausted input reads as zeros.
func (c *choices) byte() byte {
	if c.rng != nil {
		return byte(c.rng.Uint32())
	}
	if len(c.data) == 0 {
		return 0
	}
	b := c.data[0]
	c.data = c.data[1:]
	return b
}

// intn returns a number in [0, n), read from as few bytes as cover n.
func (c *choices) intn(n int) int {
	v, span := 0, 1
	for span < n {
		v = v<<8 | int(c.byte())
		span <<= 8
	}
	return v % n
}

// raw returns up to max bytes of the input itself, as a string that may be
// empty or invalid UTF-8: the fuzzer's own roles, ids and names.
func (c *choices) raw(max int) string {
	b := make([]byte, c.intn(max+1))
	for i := range b {
		b[i] = c.byte()
	}
	return string(b)
}

func pick(c *choices, from []string) string { return from[c.intn(len(from))] }

// sequencer turns choices into requests against a stage holding users. It
// remembers what it POSTed, so that later requests can hit those ids, and
// what the writes touched, so that the sweep can read all of it back.
type sequencer struct {
	choices
	users   []user.User // the generated users, read only
	added   []string    // ids of POSTed users, in order
	fresh   int         // numbers the new ids
	touched map[string][]string
}

func newSequencer(c choices, users []user.User) *sequencer {
	return &sequencer{choices: c, users: users, touched: map[string][]string{}}
}

// maxFuzzRequests bounds a sequence decoded from fuzz input, so that a long
// input does not make one fuzz iteration slow.
const maxFuzzRequests = 64

// decodeSequence returns the requests that data chooses, then the sweep.
func decodeSequence(data []byte, users []user.User) []request {
	s := newSequencer(choices{data: data}, users)
	var reqs []request
	for !s.done() && len(reqs) < maxFuzzRequests {
		reqs = append(reqs, s.next())
	}
	return append(reqs, s.sweep()...)
}

// randomSequence returns n requests drawn from seed, then the sweep.
func randomSequence(seed uint64, n int, users []user.User) []request {
	s := newSequencer(choices{rng: rand.New(rand.NewPCG(seed, 0))}, users)
	reqs := make([]request, 0, n)
	for range n {
		reqs = append(reqs, s.next())
	}
	return append(reqs, s.sweep()...)
}

func (s *sequencer) next() request {
	switch kind := s.kind(); kind {
	case opAddNew:
		return s.post(kind, s.newUser(s.freshID()))
	case opAddTaken:
		return s.post(kind, s.newUser(s.takenID()))
	case opAddInvalid:
		u := s.newUser(s.freshID())
		s.touch(u.ID, u.Roles) // refused, so the sweep must find none of it
		return request{kind, "POST", "/users", invalidAdds[s.intn(len(invalidAdds))](u)}
	case opAddOversized:
		u := s.newUser(s.freshID())
		s.touch(u.ID, u.Roles)
		u.Name = strings.Repeat(" ", api.MaxBodyBytes)
		return request{kind, "POST", "/users", string(mustMarshal(u))}
	case opDelete:
		id := s.anyID()
		s.touch(id, nil)
		return request{kind, "DELETE", "/users/" + url.PathEscape(id), ""}
	case opGet:
		return request{kind, "GET", "/users/" + url.PathEscape(s.anyID()), ""}
	case opListKnown:
		return request{kind, "GET", ListTarget(pick(&s.choices, knownRoles)), ""}
	case opListNew:
		return request{kind, "GET", ListTarget(pick(&s.choices, newRoles)), ""}
	case opListUnknown:
		if s.intn(2) == 0 {
			return request{kind, "GET", ListTarget(pick(&s.choices, unknownRoles)), ""}
		}
		return request{kind, "GET", ListTarget(s.raw(api.MaxRoleBytes + 8)), ""}
	default:
		return request{opListInvalid, "GET", pick(&s.choices, invalidLists), ""}
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

func (s *sequencer) post(kind opKind, u user.User) request {
	s.touch(u.ID, u.Roles)
	s.added = append(s.added, u.ID)
	return request{kind, "POST", "/users", string(mustMarshal(u))}
}

// newUser returns a valid user with id: one to four roles, known and new,
// a name from newNames or from the input, a plain or a maximal email. Zero
// choices give the plainest user, which keeps hand-written seeds short.
func (s *sequencer) newUser(id string) user.User {
	u := user.User{ID: id, Name: pick(&s.choices, newNames), Email: "new." + id + "@example.com"}
	if s.intn(4) == 3 {
		u.Name = "raw " + s.raw(24) // the prefix keeps it non-empty
	}
	if s.intn(4) == 3 {
		u.Email = strings.Repeat("e", api.MaxEmailBytes-len("@example.com")) + "@example.com"
	}
	// Up to four draws; a repeated draw is skipped rather than redrawn,
	// because an exhausted fuzz input would repeat it forever.
	for range 1 + s.intn(4) {
		from := knownRoles
		if s.intn(2) == 1 {
			from = newRoles
		}
		if r := pick(&s.choices, from); !slices.Contains(u.Roles, r) {
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
		return pick(&s.choices, s.added)
	}
	return user.FormatID(s.intn(len(s.users)))
}

// anyID returns a generated or POSTed id (most often, so that most DELETEs
// succeed), an id that was never used but looks like one, or raw input bytes.
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

// sweep reads back every id that a write touched and the lists of the roles
// it recorded, in a fixed order, so that a lost or misapplied write shows up
// even when no later request of the sequence happened to read it. The other
// roles of a deleted generated user are left to the random lists: they are
// the large lists (viewer, member, ...), slow to encode under -race.
func (s *sequencer) sweep() []request {
	ids := make([]string, 0, len(s.touched))
	var roles []string
	for id, rs := range s.touched {
		ids = append(ids, id)
		roles = append(roles, rs...)
	}
	slices.Sort(ids)
	slices.Sort(roles)
	var reqs []request
	for _, id := range ids {
		reqs = append(reqs, request{opSweep, "GET", "/users/" + url.PathEscape(id), ""})
	}
	for _, role := range slices.Compact(roles) {
		reqs = append(reqs, request{opSweep, "GET", ListTarget(role), ""})
	}
	return reqs
}
