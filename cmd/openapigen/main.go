// Command openapigen writes openapi.yaml, the REST contract, from the swag
// annotations on the api package's handlers (swag's Swagger 2 output,
// converted to OpenAPI 3). With -check it writes nothing and fails when the
// committed file differs from what the annotations say.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
)

func main() {
	check := flag.Bool("check", false, "fail when the output file differs from what the annotations generate")
	dir := flag.String("api", "api", "the package whose annotations to read")
	out := flag.String("out", "openapi.yaml", "the file to write")
	flag.Parse()

	spec, err := Generate(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
	if *check {
		if err := Check(*out, spec); err != nil {
			fmt.Fprintln(os.Stderr, "openapigen:", err)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*out, spec, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// Check reports whether the committed file at path is exactly spec.
func Check(path string, spec []byte) error {
	committed, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(committed, spec) {
		return fmt.Errorf("%s is out of date with the API annotations: run `make openapi` and commit the result", path)
	}
	return nil
}
