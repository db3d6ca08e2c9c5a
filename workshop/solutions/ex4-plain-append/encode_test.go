package main

import (
	"testing"

	"example.com/userperf/common/apitest"
)

// appendUser and encodeUsers against encoding/json on thousands of awkward
// strings (apitest.TrickyStrings): the API refuses invalid UTF-8, so only
// these tests send it to the encoder.

func TestAppendUserMatchesEncodingJSON(t *testing.T) { apitest.EncodeUsers(t, appendUser, encodeUsers) }

func FuzzEncodeUser(f *testing.F) { apitest.FuzzEncodeUser(f, appendUser) }
