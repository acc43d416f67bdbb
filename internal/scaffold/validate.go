package scaffold

import "github.com/a2agen/a2agen/internal/manifest"

// Validate loads the manifest at path and returns nil when it is valid, or
// the error of manifest.Load: manifest.Errors listing every problem, each
// "file:line:col: path: message", or an error reading the file.
func Validate(path string) error {
	_, err := manifest.Load(path)
	return err
}
