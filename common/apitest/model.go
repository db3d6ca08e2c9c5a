// Package apitest is the conformance suite that every stage runs: the API
// contract that the repository's README describes, as executable checks,
// byte for byte against encoding/json.
package apitest

import (
	"encoding/json"

	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// Model is the reference implementation of the store: the obvious code,
// with no concern for speed, that every stage must agree with. It is
// package plain's Store, the one plain store of the repository.
type Model = plain.Store

// NewModel returns a model holding users.
func NewModel(users []user.User) *Model { return plain.New(users) }

func mustMarshal(v any) []byte {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return body
}
