package main

import (
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/user"
)

func TestViewOutlivesWrites(t *testing.T) {
	s := New(user.MustGenerate(user.DefaultCount, user.DefaultSeed)).(*Store)
	apitest.ViewOutlivesWrites(t, s, s.findByRole, encodeUsers)
}
