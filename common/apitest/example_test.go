package apitest_test

import (
	"flag"
	"fmt"
	"regexp"
	"testing"

	"example.com/userperf/common/apitest"
)

// A stage runs the conformance suite from its stage_test.go, with its own
// constructor:
//
//	func TestAPI(t *testing.T) { apitest.Run(t, New) }
//
// This example runs it so on the plain stage, which every stage is compared
// with: the plain stage is held to the same contract. An example has no
// *testing.T, so it runs the test through testing.RunTests, as go test does,
// with this run's -run, -skip and -v set aside, so that the suite runs
// whatever they select and prints nothing unless it fails.
func ExampleRun() {
	for name, value := range map[string]string{"test.run": "", "test.skip": "", "test.v": "false"} {
		f := flag.Lookup(name)
		old := f.Value.String()
		f.Value.Set(value)
		defer f.Value.Set(old)
	}
	ran := false
	api := func(t *testing.T) {
		ran = true
		apitest.Run(t, apitest.NewPlain)
	}
	passed := testing.RunTests(regexp.MatchString, []testing.InternalTest{{Name: "TestAPI", F: api}})
	fmt.Println("ran:", ran, "passed:", passed)
	// Output: ran: true passed: true
}
