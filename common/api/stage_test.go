package api

import (
	"log"
	"net/http"
	"strings"
	"sync"

	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// newMapStage returns the plainest Stage, for testing the HTTP layer
// alone: the plain store that apitest's NewPlain serves too. Package
// plain imports only common/user, so this package's own tests may use it;
// apitest imports api, so only the tests of package api_test can use that.
func newMapStage(users []user.User) Stage { return plain.New(users) }

// syncBuffer is a log destination that the server's goroutines and the
// test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newTestLogger returns a logger whose output the test can read.
func newTestLogger() (*log.Logger, *syncBuffer) {
	var buf syncBuffer
	return log.New(&buf, "", 0), &buf
}

// testConfig is what parseFlags gives with no flags, on any free loopback port.
func testConfig() config {
	return config{name: "test", addr: "127.0.0.1:0", users: user.MinCount, limits: DefaultLimits, seed: user.DefaultSeed}
}

// newTestHandler returns the API over a mapStage holding the smallest data set.
func newTestHandler() http.Handler {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	return NewHandler(newMapStage(users), users)
}
