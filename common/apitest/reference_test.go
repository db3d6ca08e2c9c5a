package apitest

import "testing"

// TestReference holds the Reference, which every stage is compared with,
// to the same contract as the stages.
func TestReference(t *testing.T) { Run(t, NewReference) }
