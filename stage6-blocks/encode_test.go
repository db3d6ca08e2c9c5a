package main

import (
	"slices"
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/user"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) { apitest.EncodeStrings(t, appendEscaped) }

func TestAppendUserMatchesEncodingJSON(t *testing.T) {
	apitest.EncodeUsers(t, appendUser, func(users []*user.User) []byte {
		list := make([]*stored, len(users))
		for i, u := range users {
			list[i] = newStored(u)
		}
		var l roleList
		for run := range slices.Chunk(list, blockUsers) {
			l = append(l, newBlock(run))
		}
		return encodeUsers(l)
	})
}

func TestHasSpecialByteEveryByte(t *testing.T) {
	apitest.SpecialBytes(t, func(word string) bool { return hasSpecialByte(load64(word, 0)) })
}

func FuzzEncodeString(f *testing.F) { apitest.FuzzEncodeString(f, appendEscaped) }

func FuzzEncodeUser(f *testing.F) { apitest.FuzzEncodeUser(f, appendUser) }
