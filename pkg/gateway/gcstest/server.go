// Package gcstest is a fake of the Cloud Storage JSON API, as much of it as
// the sandbox gateway uses: media upload, download, object metadata and
// delete, answering with the real API's status codes and error documents.
package gcstest

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// Server is a fake Cloud Storage. Buckets exist only once created.
type Server struct {
	*httptest.Server
	// Token, when set, is the only bearer token accepted.
	Token string

	mu      sync.Mutex
	buckets map[string]map[string]object
	nextGen int64
}

type object struct {
	data       []byte
	generation int64
	created    time.Time
}

// NewServer starts a fake with the given buckets; Close stops it.
func NewServer(buckets ...string) *Server {
	s := &Server{buckets: map[string]map[string]object{}, nextGen: time.Now().UnixMicro()}
	for _, b := range buckets {
		s.buckets[b] = map[string]object{}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /upload/storage/v1/b/{bucket}/o", s.upload)
	mux.HandleFunc("GET /storage/v1/b/{bucket}/o/{object...}", s.get)
	mux.HandleFunc("DELETE /storage/v1/b/{bucket}/o/{object...}", s.delete)
	s.Server = httptest.NewServer(s.authorize(mux))
	return s
}

// Object returns a stored object's bytes.
func (s *Server) Object(bucket, name string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.buckets[bucket][name]
	return o.data, ok
}

// PutObject stores an object directly, as another writer of the bucket would.
func (s *Server) PutObject(bucket, name string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buckets[bucket] == nil {
		s.buckets[bucket] = map[string]object{}
	}
	s.nextGen++
	s.buckets[bucket][name] = object{data: data, generation: s.nextGen, created: time.Now()}
}

func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Token == "" {
			next.ServeHTTP(w, r)
			return
		}
		switch r.Header.Get("Authorization") {
		case "":
			writeError(w, http.StatusUnauthorized, "required", "Login Required")
		case "Bearer " + s.Token:
			next.ServeHTTP(w, r)
		default:
			writeError(w, http.StatusUnauthorized, "authError", "Invalid Credentials")
		}
	})
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	bucket, name := r.PathValue("bucket"), r.URL.Query().Get("name")
	if r.URL.Query().Get("uploadType") != "media" {
		writeError(w, http.StatusBadRequest, "invalid", "Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/")
		return
	}
	if name == "" {
		writeError(w, http.StatusBadRequest, "required", "Required")
		return
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	s.mu.Lock()
	objects, ok := s.buckets[bucket]
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "notFound", "The specified bucket does not exist.")
		return
	}
	s.nextGen++
	o := object{data: data, generation: s.nextGen, created: time.Now()}
	objects[name] = o
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resource(bucket, name, o, r.Header.Get("Content-Type")))
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	bucket, name := r.PathValue("bucket"), r.PathValue("object")
	o, ok := s.lookup(w, bucket, name)
	if !ok {
		return
	}
	if r.URL.Query().Get("alt") != "media" {
		writeJSON(w, http.StatusOK, resource(bucket, name, o, "application/x-tar"))
		return
	}
	w.Header().Set("Content-Type", "application/x-tar")
	w.Header().Set("Content-Length", strconv.Itoa(len(o.data)))
	w.Header().Set("X-Goog-Generation", strconv.FormatInt(o.generation, 10))
	w.Header().Set("X-Goog-Stored-Content-Length", strconv.Itoa(len(o.data)))
	_, _ = w.Write(o.data)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	bucket, name := r.PathValue("bucket"), r.PathValue("object")
	if _, ok := s.lookup(w, bucket, name); !ok {
		return
	}
	s.mu.Lock()
	delete(s.buckets[bucket], name)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// lookup finds an object or answers 404 as the JSON API does.
func (s *Server) lookup(w http.ResponseWriter, bucket, name string) (object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	objects, ok := s.buckets[bucket]
	if !ok {
		writeError(w, http.StatusNotFound, "notFound", "The specified bucket does not exist.")
		return object{}, false
	}
	o, ok := objects[name]
	if !ok {
		writeError(w, http.StatusNotFound, "notFound", fmt.Sprintf("No such object: %s/%s", bucket, name))
		return object{}, false
	}
	return o, true
}

// resource is the JSON API's object resource.
func resource(bucket, name string, o object, contentType string) map[string]any {
	md5sum := md5.Sum(o.data)
	var crc [4]byte
	binary.BigEndian.PutUint32(crc[:], crc32.Checksum(o.data, crc32.MakeTable(crc32.Castagnoli)))
	gen := strconv.FormatInt(o.generation, 10)
	at := o.created.UTC().Format(time.RFC3339Nano)
	return map[string]any{
		"kind":           "storage#object",
		"id":             bucket + "/" + name + "/" + gen,
		"name":           name,
		"bucket":         bucket,
		"generation":     gen,
		"metageneration": "1",
		"contentType":    contentType,
		"storageClass":   "STANDARD",
		"size":           strconv.Itoa(len(o.data)),
		"md5Hash":        base64.StdEncoding.EncodeToString(md5sum[:]),
		"crc32c":         base64.StdEncoding.EncodeToString(crc[:]),
		"etag":           base64.StdEncoding.EncodeToString([]byte(gen)),
		"timeCreated":    at,
		"updated":        at,
	}
}

// writeError answers with the JSON API's error document.
func writeError(w http.ResponseWriter, status int, reason, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code":    status,
		"message": message,
		"errors":  []map[string]string{{"message": message, "domain": "global", "reason": reason}},
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
