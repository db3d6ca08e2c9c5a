package main

import (
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
	"example.com/userperf/common/user"
)

func TestParallelMatchesMarshal(t *testing.T) { apitest.ParallelMatchesMarshal(t, appendUsersParallel) }

func TestParallelMinTurnsItOn(t *testing.T) { apitest.ParallelMin(t, &parallelMin, encodeUsers) }

func BenchmarkParallel(b *testing.B) { bench.Parallel(b, encodeSerial, encodeParallel, putBuffer) }

// encodeSerial and encodeParallel are the two ways BenchmarkParallel
// encodes a result, each into a reserved, reused body, whatever
// parallelMin says.
func encodeSerial(users []*user.User) []byte {
	return append(appendUserList(append(getBuffer(reservedSize(users)), '['), users), ']')
}

func encodeParallel(users []*user.User) []byte {
	return appendUsersParallel(getBuffer(reservedSize(users)), users)
}
