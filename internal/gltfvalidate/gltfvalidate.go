// Package gltfvalidate runs the Khronos glTF-Validator from Go tests. Every GLB the
// product ships must open in any viewer (model-viewer, Quick Look, Scene Viewer), and
// the reference validator is the only judge all of them agree on, so tests of the
// reconstructors push their output through it instead of trusting our own reader.
//
// The validator is the npm package gltf-validator, installed by `make test` (npm ci in
// tools/gltf-validator). A missing node or node_modules fails the test loudly: a skipped
// validation would let broken models through silently.
package gltfvalidate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Message is one validator finding, kept so failing tests can show what is wrong.
type Message struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Pointer string `json:"pointer"`
}

// Report is the validator's verdict for one file, returned so callers can assert
// more than "no errors" (for example that warnings stay at zero).
type Report struct {
	File        string    `json:"file"`
	NumErrors   int       `json:"numErrors"`
	NumWarnings int       `json:"numWarnings"`
	NumInfos    int       `json:"numInfos"`
	Messages    []Message `json:"messages"`
	Warnings    []Message `json:"warnings"`
	Generator   string    `json:"generator"`
}

// Validate writes glb to a temporary file, validates it and fails t unless the
// validator reports zero errors. It exists so a test can check bytes it just built
// without managing files itself.
func Validate(t testing.TB, glb []byte) Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.glb")
	if err := os.WriteFile(path, glb, 0o600); err != nil {
		t.Fatalf("write glb for validation: %v", err)
	}
	return ValidateFile(t, path)
}

// ValidateFile validates the GLB at path and fails t unless it has zero errors.
func ValidateFile(t testing.TB, path string) Report {
	t.Helper()
	script, err := validatorScript()
	if err != nil {
		t.Fatalf("glTF validator unavailable: %v", err)
	}
	rep, err := run(script, path)
	if err != nil {
		t.Fatalf("run glTF validator on %s: %v", path, err)
	}
	if rep.NumErrors != 0 {
		t.Fatalf("glTF validator: %s has %d errors, %d warnings: %+v", path, rep.NumErrors, rep.NumWarnings, rep.Messages)
	}
	if rep.NumWarnings != 0 {
		t.Logf("glTF validator: %s has %d warnings: %+v", path, rep.NumWarnings, rep.Warnings)
	}
	return rep
}

// errNotInstalled explains how to get the validator; it is the message a developer sees.
var errNotInstalled = errors.New("run make test, which installs it (npm ci in tools/gltf-validator)")

// validatorScript finds tools/gltf-validator/validate.mjs in the repository that holds
// the current working directory and checks that node and the npm package exist.
func validatorScript() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "tools", "gltf-validator")
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node is not on PATH: %w", errNotInstalled)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "gltf-validator", "package.json")); err != nil {
		return "", fmt.Errorf("%s/node_modules/gltf-validator is missing: %w", dir, errNotInstalled)
	}
	return filepath.Join(dir, "validate.mjs"), nil
}

// repoRoot walks up from the working directory to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("get working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// run executes the validator script on one file and parses its JSON line.
func run(script, path string) (Report, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", script, path)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var rep Report
		if err := json.Unmarshal(line, &rep); err != nil {
			return Report{}, fmt.Errorf("decode validator output %q: %w", line, err)
		}
		return rep, nil
	}
	if runErr != nil {
		return Report{}, fmt.Errorf("validator exited: %w: %s", runErr, stderr.String())
	}
	return Report{}, fmt.Errorf("validator printed no report: %s", stderr.String())
}
