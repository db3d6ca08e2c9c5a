// Command ex5-plain-encode-once is exercise 5's reference: stage 4 with
// each user encoded once, when it is written, so that a read only copies
// bytes. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("ex5-plain-encode-once", New) }
