package apitest

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// corruptingStage is a stage with a bug that only shows late: from its
// n-th list on, it changes one byte in the middle of one body.
type corruptingStage struct {
	api.Stage
	lists, n  int
	corrupted bool
}

func (s *corruptingStage) ListByRole(role string) []byte {
	body := s.Stage.ListByRole(role)
	if s.lists++; s.lists >= s.n && !s.corrupted && len(body) > 2 {
		body = bytes.Clone(body)
		body[len(body)/2]++
		s.corrupted = true
	}
	return body
}

func TestDifferentialCatchesOneCorruptedByte(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	reqs := RandomRequests(0, differentialRequests, users)
	var stage *corruptingStage
	newStage := func(n int) api.NewStage {
		return func(users []user.User) api.Stage {
			stage = &corruptingStage{Stage: NewPlain(users), n: n}
			return stage
		}
	}

	// The control: the same sequence passes while the bug stays dormant.
	if err := compareWithPlain(newStage(len(reqs)+1), users, reqs); err != nil {
		t.Fatalf("an uncorrupted plain stage differs from the plain stage: %v", err)
	}

	err := compareWithPlain(newStage(10), users, reqs)
	if !stage.corrupted {
		t.Fatalf("no list from the 10th on has a non-empty result, so nothing was corrupted; the test proves nothing")
	}
	if err == nil {
		t.Fatal("a body with one wrong byte passed the differential test")
	}
	if msg := err.Error(); !strings.Contains(msg, "GET /users?role=") || !strings.Contains(msg, "the body differs: first difference at byte") {
		t.Errorf("the report does not name the list request and its body:\n%v", err)
	}
}

// staleListStage lists the users it started with, whatever was written
// since: the bug of a role index that is not maintained on writes.
type staleListStage struct {
	api.Stage           // the live store: Get, Add, Delete
	start     api.Stage // answers ListByRole
}

func (s staleListStage) ListByRole(role string) []byte { return s.start.ListByRole(role) }

func TestDifferentialCatchesAStaleIndex(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stale := func(users []user.User) api.Stage {
		return staleListStage{Stage: NewPlain(users), start: NewPlain(cloneUsers(users))}
	}
	// One POST and nothing else: only the sweep reads the new user's roles.
	reqs := sequence([]byte{kindByte(opAddNew)}, fuzzRequests, users)
	if reqs[len(reqs)-1].kind != opSweep {
		t.Fatalf("a sequence of one POST ends with %s, not with the sweep", reqs[len(reqs)-1].kind)
	}
	err := compareWithPlain(stale, users, reqs)
	if err == nil {
		t.Fatal("a stage whose lists ignore writes passed the differential test")
	}
	if !strings.Contains(err.Error(), "Sweep") {
		t.Errorf("the difference was not found by the sweep:\n%v", err)
	}
}

// TestRandomSequencesCoverEveryKind checks that Differential's sequences
// hold every kind of request, and that together they draw every status
// the API can answer.
func TestRandomSequencesCoverEveryKind(t *testing.T) {
	kinds := map[opKind]int{}
	generated := user.MustGenerate(user.DefaultCount, user.DefaultSeed)
	for seed := range uint64(differentialSequences) {
		for _, r := range RandomRequests(seed, differentialRequests, generated) {
			kinds[r.kind]++
		}
	}
	for kind := range opKind(numOpKinds + 1) {
		if kinds[kind] < 3 {
			t.Errorf("Differential sends %d requests of kind %s; want at least 3", kinds[kind], kind)
		}
	}

	// The statuses, on the smaller data set for speed: the kinds above do
	// not depend on the number of users.
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	statuses := map[int]int{}
	for seed := range uint64(differentialSequences) {
		h := api.NewHandler(NewPlain(cloneUsers(users)), users)
		for _, r := range RandomRequests(seed, differentialRequests, users) {
			statuses[Do(h, r.Method, r.Target, r.Body).Code]++
		}
	}
	for _, status := range []int{200, 201, 204, 400, 404, 409, 413} {
		if statuses[status] == 0 {
			t.Errorf("no request of the sequences is answered %d %s (statuses: %v)", status, http.StatusText(status), statuses)
		}
	}
}

// TestFuzzSeedsCoverEveryKind checks FuzzDifferential's seeds: each kind of
// request starts one of them, and the write-then-read seed does what its
// comment says.
func TestFuzzSeedsCoverEveryKind(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	first := map[opKind]bool{}
	for _, seed := range fuzzSeeds() {
		first[sequence(seed, fuzzRequests, users)[0].kind] = true
	}
	for kind := range opKind(numOpKinds) {
		if !first[kind] {
			t.Errorf("no fuzz seed starts with a request of kind %s", kind)
		}
	}

	story := sequence(writeThenReadSeed(), fuzzRequests, users)
	var got []string
	for _, r := range story {
		if r.kind != opSweep {
			got = append(got, r.kind.String()+" "+r.Method+" "+r.Target)
		}
	}
	want := []string{
		"AddNew POST /users",
		"ListNew GET /users?role=brand-new",
		"Delete DELETE /users/zz-new-1",
		"ListNew GET /users?role=brand-new",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the write-then-read seed decodes as\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(story[0].Body, `"id":"zz-new-1"`) {
		t.Errorf("its POST adds %s, not zz-new-1", story[0].Body)
	}
}

// dropOnRefusedAdd is a stage whose Add, refused for a taken id, drops the
// user that holds it: a refused request that changes the store.
type dropOnRefusedAdd struct{ api.Stage }

func (s dropOnRefusedAdd) Add(u user.User) bool {
	if !s.Stage.Add(u) {
		s.Stage.Delete(u.ID)
		return false
	}
	return true
}

func TestDifferentialNamesTheRefusedWrite(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	drop := func(users []user.User) api.Stage { return dropOnRefusedAdd{NewPlain(users)} }
	// One POST of a taken id, refused with 409; only the sweep reads it back.
	reqs := sequence([]byte{kindByte(opAddTaken)}, fuzzRequests, users)
	err := compareWithPlain(drop, users, reqs)
	if err == nil {
		t.Fatal("a stage that dropped a user on a refused POST passed the differential test")
	}
	msg := err.Error()
	if !strings.Contains(msg, "the last write refused before it: request 1, AddTaken POST /users") {
		t.Errorf("the report does not name the refused POST:\n%v", err)
	}
	if !strings.Contains(msg, "(refused: 409)") {
		t.Errorf("the list of requests does not mark the refused POST:\n%v", err)
	}
}
