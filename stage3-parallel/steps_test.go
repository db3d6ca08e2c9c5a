package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"example.com/userperf/common/bench"
	"example.com/userperf/common/user"
)

// BenchmarkSteps takes this stage apart: its three ideas added one at a
// time on top of stage 2's encoder, on the same users, so that the chapter
// can show what each one gives.
//
//	step=0-stage2     stage 2: json.Marshal per user, appended to a body that grows
//	step=1-reserve    + the body reserved for its users and reused
//	step=2-append     + each user appended by hand-written code (this stage's default)
//	step=3-parallel   + chunks encoded in parallel on every core
func BenchmarkSteps(b *testing.B) {
	store := New(bench.Users(user.DefaultCount)).(*Store)
	steps := []struct {
		name   string
		encode func([]*user.User) []byte
	}{
		{"0-stage2", encodeLikeStage2},
		{"1-reserve", encodeReservedWithMarshal},
		{"2-append", func(users []*user.User) []byte { return appendUsers(getBuffer(encodedSize(users)), users) }},
		{"3-parallel", func(users []*user.User) []byte {
			return appendUsersParallel(getBuffer(encodedSize(users)), users)
		}},
	}
	for _, role := range []string{user.RoleAdmin, user.RoleEditor} {
		users := store.findByRole(role)
		want := appendUsers(nil, users)
		for _, step := range steps {
			b.Run(fmt.Sprintf("matches=%d/step=%s", len(users), step.name), func(b *testing.B) {
				if got := step.encode(users); !bytes.Equal(got, want) {
					b.Fatalf("step %s gives other bytes than the encoder", step.name)
				}
				b.ReportAllocs()
				for b.Loop() {
					putBuffer(step.encode(users))
				}
			})
		}
	}
}

// encodeLikeStage2 is stage 2's encoder.
func encodeLikeStage2(users []*user.User) []byte {
	body := []byte{'['}
	for i, u := range users {
		if i > 0 {
			body = append(body, ',')
		}
		piece, _ := json.Marshal(u)
		body = append(body, piece...)
	}
	return append(body, ']')
}

// encodeReservedWithMarshal is stage 2's encoder writing into a reserved,
// reused body: json.Marshal still returns a new slice for every user, which
// is then copied in.
func encodeReservedWithMarshal(users []*user.User) []byte {
	body := append(getBuffer(encodedSize(users)), '[')
	for i, u := range users {
		if i > 0 {
			body = append(body, ',')
		}
		piece, _ := json.Marshal(u)
		body = append(body, piece...)
	}
	return append(body, ']')
}
