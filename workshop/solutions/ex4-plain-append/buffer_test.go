package main

import (
	"testing"

	"example.com/userperf/common/apitest"
)

func TestPoisonedSizesDoNotInflateOtherBodies(t *testing.T) { apitest.PoisonedSizes(t, New) }

func TestBufferReuse(t *testing.T) {
	apitest.BufferReuse(t, apitest.FreeList{Get: getBuffer, Put: putBuffer, List: freeList, MaxReused: maxReusedBytes})
}
