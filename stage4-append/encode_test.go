package main

import (
	"testing"

	"example.com/userperf/common/apitest"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) { apitest.EncodeStrings(t, appendEscaped) }

func TestAppendUserMatchesEncodingJSON(t *testing.T) { apitest.EncodeUsers(t, appendUser, encodeUsers) }

func TestHasSpecialByteEveryByte(t *testing.T) {
	apitest.SpecialBytes(t, func(word string) bool { return hasSpecialByte(load64(word, 0)) })
}

func FuzzEncodeString(f *testing.F) { apitest.FuzzEncodeString(f, appendEscaped) }

func FuzzEncodeUser(f *testing.F) { apitest.FuzzEncodeUser(f, appendUser) }
