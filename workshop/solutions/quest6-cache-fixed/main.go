// Command quest6-cache-fixed serves the user list API from stage1-index's
// role index through a cache that every write keeps right: the reference
// solution of side quest 6 in WORKSHOP.md. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("quest6-cache-fixed", New) }
