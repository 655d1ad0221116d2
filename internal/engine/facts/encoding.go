package facts

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// encodingPrefix versions the encoding: a provider that cannot read a value says so.

// Encode is the facts as the data source hands them on: gzip'd JSON in
// base64 behind a version prefix (about 75 bytes a member with hub, members and windows: 74,524
// bytes for a generated 1,000-member fleet with varied labels and heartbeat times).
func (f *Snapshot) Encode() (string, error) {
	raw, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return encodingPrefix + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// Digest names the facts (the data source's id): equal facts, equal digest.
func (f *Snapshot) Digest() string {
	raw, _ := json.Marshal(f)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// Decode reads what Encode wrote.
func Decode(s string) (*Snapshot, error) {
	if !strings.HasPrefix(s, encodingPrefix) {
		return nil, errors.New("not a value of data.fleet_facts' content (it starts with " + encodingPrefix + ")")
	}
	zipped, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, encodingPrefix))
	if err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	var f Snapshot
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	return &f, nil
}
