package api_test

import (
	"testing"

	"example.com/userperf/common/apitest"
)

// TestAPILayer runs, once, the checks that no stage can change: the bad
// requests and bodies that the API layer refuses before a stage sees them,
// their statuses, their wording and what their error bodies must not leak.
// The stages' shared suite, apitest.Run, leaves them out.
func TestAPILayer(t *testing.T) { apitest.APILayer(t, apitest.NewPlain) }
