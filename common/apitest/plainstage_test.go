package apitest

import "testing"

// TestPlain holds the plain stage, which every stage is compared with, to
// the same contract as the stages.
func TestPlain(t *testing.T) { Run(t, NewPlain) }
