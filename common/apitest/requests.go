package apitest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// The vocabulary of the differential sequences: the kinds of requests and
// the roles, names and broken inputs they are made of. sequence.go turns a
// stream of choices into requests from these.

// A request is one step of a differential sequence.
type request struct {
	kind                 opKind
	method, target, body string
}

func (r request) String() string {
	s := r.method + " " + clip(r.target, 160)
	if r.body != "" {
		s += " " + strconv.Quote(clip(r.body, 240))
	}
	return s
}

// clip shortens s for a report to about n bytes, keeping its head and its
// tail (where a POST body lists the roles).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + fmt.Sprintf("...(%d bytes)...", len(s)) + s[len(s)-n/2:]
}

// opKind is what a request does. One choice in the input selects it.
type opKind uint8

const (
	opAddNew       opKind = iota // POST of a fresh id: 201
	opAddTaken                   // POST of a generated or added id: 409, or 201 once it was deleted
	opAddInvalid                 // POST that breaks one rule: 400
	opAddOversized               // POST of a body over api.MaxBodyBytes: 413
	opDelete                     // DELETE of a generated, added or unknown id: 204 or 404
	opGet                        // GET /users/{id} of the same kinds of ids: 200 or 404
	opListKnown                  // GET /users?role= with a role of the generated data
	opListNew                    // ... with a role that only POSTed users hold
	opListUnknown                // ... with a role nobody holds, often raw input bytes
	opListInvalid                // ... empty, too long, not UTF-8, repeated or missing: 400
	opSweep                      // the closing reads of everything the writes touched
)

// numOpKinds is how many kinds a choice selects from: all but opSweep.
const numOpKinds = int(opSweep)

var opNames = [...]string{"AddNew", "AddTaken", "AddInvalid", "AddOversized", "Delete",
	"Get", "ListKnown", "ListNew", "ListUnknown", "ListInvalid", "Sweep"}

// opWeights are the odds of each kind, out of 32 so that one byte chooses
// without bias. Successful writes weigh most, because a list that is wrong
// after a write is the bug that later stages can have (an index not kept up
// to date, a view torn by a writer); the 64 KiB oversized body weighs least.
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

func (k opKind) String() string { return opNames[k] }

// knownRoles occur in the generated data: the two fixed result sizes (100
// and 1,000 users), a rare role, both ends of the long tail (the far end may
// be held by nobody), and the two Korean roles. The larger lists (viewer
// holds two thirds of the users) are left to the conformance suite: they
// are slow to encode under -race, and the sweep would read them after
// every sequence that gave a new user one of them.
var knownRoles = []string{user.RoleAdmin, user.RoleEditor, "owner",
	"team-0000", "team-0007", "team-1999", "연구원", "운영자"}

// newRoles are held only by users that a sequence POSTs: non-ASCII roles,
// roles with the characters an encoder escapes or a query must escape,
// near-misses of known roles, and roles at the length limit in bytes.
var newRoles = []string{"brand-new", "관리자", "rôle", "日本語", "emoji-😀",
	"<b>&amp;", "line\u2028break", `quo"te`, `back\slash`, "tab\there", "with space",
	"a+b=c&d", "Admin", "admin ", strings.Repeat("r", api.MaxRoleBytes),
	strings.Repeat("가", api.MaxRoleBytes/len("가"))}

// newNames exercise the encoder: quotes, HTML characters, backslashes,
// control characters, U+2028 and U+2029, an emoji, DEL, invalid UTF-8 (which
// the JSON body carries as U+FFFD) and a name at the length limit.
var newNames = []string{"New User", "새 사용자", `Jae "JJ" <b>Park</b> & Co`,
	`C:\new\user`, "ctl\x00\x01\x1f end", "sep\u2028\u2029end", "emoji 😀 ok",
	"DEL\x7f", "bad \xff\xfe utf8", strings.Repeat("n", api.MaxNameBytes)}

// unknownRoles are held by nobody, some of them by a hair.
var unknownRoles = []string{"nobody", "ADMIN", " admin", "admin\x00", "team-9999",
	"<&>\u2028", "관리", "viewer,editor", "*"}

// invalidLists are GET /users targets that must be refused with 400.
var invalidLists = []string{
	"/users",
	"/users?role=",
	"/users?rol=admin",
	"/users?role=" + strings.Repeat("a", api.MaxRoleBytes+1),
	"/users?role=" + url.QueryEscape(strings.Repeat("가", api.MaxRoleBytes/len("가")+1)),
	"/users?role=" + strings.Repeat("x", 10_000),
	"/users?role=%ff",
	"/users?role=ad%c3min",
	"/users?role=%e2%80",
	"/users?role=%zz",
	"/users?role=admin;x",
	"/users?role=admin&role=editor",
	"/users?role=admin&role=admin",
}

// invalidAdds each break one rule of POST /users in an otherwise valid user.
var invalidAdds = []func(u user.User) string{
	func(u user.User) string { b := mustMarshal(u); return string(b[:len(b)/2]) },
	func(u user.User) string { return strings.TrimSuffix(string(mustMarshal(u)), "}") + `,"admin":true}` },
	func(u user.User) string { return string(mustMarshal(u)) + string(mustMarshal(u)) },
	func(u user.User) string { return "[" + string(mustMarshal(u)) + "]" },
	func(u user.User) string { return withoutField(u, "id") },
	func(u user.User) string { return withoutField(u, "roles") },
	func(u user.User) string { u.ID += "/x"; return string(mustMarshal(u)) },
	func(u user.User) string { u.ID = strings.Repeat("i", api.MaxIDBytes+1); return string(mustMarshal(u)) },
	func(u user.User) string { u.Name = ""; return string(mustMarshal(u)) },
	func(u user.User) string {
		u.Name = strings.Repeat("n", api.MaxNameBytes+1)
		return string(mustMarshal(u))
	},
	func(u user.User) string { u.Email = "no-at-sign.example.com"; return string(mustMarshal(u)) },
	func(u user.User) string { u.Roles = []string{}; return string(mustMarshal(u)) },
	func(u user.User) string { u.Roles = append(u.Roles, u.Roles[0]); return string(mustMarshal(u)) },
	func(u user.User) string { u.Roles = append(u.Roles, ""); return string(mustMarshal(u)) },
	func(u user.User) string {
		u.Roles = append(u.Roles, strings.Repeat("r", api.MaxRoleBytes+1))
		return string(mustMarshal(u))
	},
	func(u user.User) string {
		for i := len(u.Roles); i <= api.MaxRoles; i++ {
			u.Roles = append(u.Roles, "extra-"+strconv.Itoa(i))
		}
		return string(mustMarshal(u))
	},
}

func withoutField(u user.User, field string) string {
	var m map[string]any
	if err := json.Unmarshal(mustMarshal(u), &m); err != nil {
		panic(err)
	}
	delete(m, field)
	return string(mustMarshal(m))
}
