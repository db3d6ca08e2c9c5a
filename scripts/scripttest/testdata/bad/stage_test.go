// Package bad is the stage that every script's workspace holds: its
// benchmarks pass, fail, panic, or take their time.
package bad

import (
	"testing"
	"time"
)

func BenchmarkGood(b *testing.B) {
	for b.Loop() {
	}
}

func BenchmarkFails(b *testing.B) { b.Fatal("the answer is wrong") }

func BenchmarkPanics(b *testing.B) { panic("boom") }

func BenchmarkSlow(b *testing.B) {
	for b.Loop() {
		time.Sleep(100 * time.Millisecond)
	}
}
