package apitest

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
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
