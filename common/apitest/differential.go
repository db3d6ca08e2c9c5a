package apitest

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// NewPlain returns the plain store of package plain behind one mutex, as
// the slowest obvious stage, written to be easy to believe: the
// differential tests compare every stage with it, and ExampleRun holds it
// to Run's contract. It is an api.NewStage.
func NewPlain(users []user.User) api.Stage {
	return plain.NewLocked(users)
}

// The size of Differential's run: enough requests to hit every kind many
// times (TestRandomSequencesCoverEveryKind checks it), few enough to stay
// quick under -race at 10,000 users.
const (
	differentialSequences = 6
	differentialRequests  = 50 // per sequence, before the sweep
)

// Differential sends the same random sequences of requests (writes, reads
// and bad input of every kind, then a sweep that reads back all the writes
// touched) to a stage and to the plain stage, each over its own copy of the
// 10,000 generated users, and fails at the first response that differs in
// status, in a header or in one byte of the body, listing the requests that
// led to it. As every stage is compared with the same plain stage, the
// stages that pass answer alike. Subtests are named by seed, so that
// go test -run 'TestDifferential/seed=3' replays one sequence.
func Differential(t *testing.T, newStage api.NewStage) {
	users := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	for seed := range uint64(differentialSequences) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			if err := compareWithPlain(newStage, users, randomSequence(seed, differentialRequests, users)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// FuzzDifferential is Differential over 1,000 users, with the requests
// chosen by the fuzzer's input (at most 64, then the sweep); go test -fuzz
// FuzzDifferential saves an input that fails under the stage's
// testdata/fuzz/FuzzDifferential.
func FuzzDifferential(f *testing.F, newStage api.NewStage) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := compareWithPlain(newStage, users, decodeSequence(data, users)); err != nil {
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
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{64, 256, 1024} {
		seed := make([]byte, n)
		for i := range seed {
			seed[i] = byte(rng.Uint32())
		}
		seeds = append(seeds, seed)
	}
	return seeds
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

// compareWithPlain sends reqs in order to a stage and to the plain stage,
// each over its own copy of users (a stage that wrongly changes a stored
// user must not change the plain stage's), and describes the first
// response that differs, or returns nil.
func compareWithPlain(newStage api.NewStage, users []user.User, reqs []request) error {
	stageUsers, plainUsers := cloneUsers(users), cloneUsers(users)
	stage := api.NewHandler(newStage(stageUsers), stageUsers)
	plainServer := api.NewHandler(NewPlain(plainUsers), plainUsers)
	statuses := make([]int, 0, len(reqs)) // the plain stage's, which the stage matched so far
	for i, r := range reqs {
		got := Do(stage, r.method, r.target, r.body)
		want := Do(plainServer, r.method, r.target, r.body)
		statuses = append(statuses, want.Code)
		if diff := responseDiff(got, want); diff != "" {
			return fmt.Errorf("request %d of %d, %s %s, differs from the plain stage: %s%s\nthe requests so far:\n%s",
				i+1, len(reqs), r.kind, r, diff, lastRefusedWrite(reqs[:i], statuses), listRequests(reqs[:i+1], statuses))
		}
	}
	return nil
}

// refusedWrite reports whether r, answered with status, is a write that
// must have changed nothing.
func refusedWrite(r request, status int) bool {
	return r.method != "GET" && r.method != "HEAD" && status >= 400
}

// lastRefusedWrite names the last refused write before a failure, or
// returns "": a stage that changed something on a refused write shows it
// only at a later read, where the test stops.
func lastRefusedWrite(before []request, statuses []int) string {
	for i := len(before) - 1; i >= 0; i-- {
		if refusedWrite(before[i], statuses[i]) {
			return fmt.Sprintf("\nthe last write refused before it: request %d, %s %s (%d)", i+1, before[i].kind, before[i], statuses[i])
		}
	}
	return ""
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

// listRequests lists reqs, marking the refused writes by their status.
func listRequests(reqs []request, statuses []int) string {
	var s strings.Builder
	for i, r := range reqs {
		refused := ""
		if refusedWrite(r, statuses[i]) {
			refused = fmt.Sprintf(" (refused: %d)", statuses[i])
		}
		fmt.Fprintf(&s, "%4d. %-11s %s%s\n", i+1, r.kind, r, refused)
	}
	return s.String()
}

// cloneUsers copies users deeply enough that nothing a stage may change
// (the slice or a user's roles) is shared.
func cloneUsers(users []user.User) []user.User {
	c := slices.Clone(users)
	for i := range c {
		c[i].Roles = slices.Clone(c[i].Roles)
	}
	return c
}

// Request is one request of a differential sequence, for live servers.
type Request struct {
	Method, Target, Body string
}

// RandomRequests returns the sequence that Differential sends for seed: n
// random requests over users, then the sweep. The cross-server check sends
// it to every stage's real server.
func RandomRequests(seed uint64, n int, users []user.User) []Request {
	var reqs []Request
	for _, r := range randomSequence(seed, n, users) {
		reqs = append(reqs, Request{Method: r.method, Target: r.target, Body: r.body})
	}
	return reqs
}
