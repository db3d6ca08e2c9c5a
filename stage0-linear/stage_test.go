package main

import (
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/bench"
)

func TestAPI(t *testing.T) { apitest.Run(t, New) }

func BenchmarkListByRole(b *testing.B) { bench.ListByRole(b, New) }

func BenchmarkServeHTTP(b *testing.B) { bench.ServeHTTP(b, New) }
