package runtime_test

import (
	"math"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/distribution"
	binlogpb "google.golang.org/grpc/binarylog/grpc_binarylog_v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The decoder reads integer fields of every size, as a JSON number or a
// string, in the plain spelling; every other spelling protojson accepts, and
// everything it refuses, is left to protojson. A2A's 64-bit integers are
// signed (generations); grpc's binary log and googleapis' Distribution are
// generated types with the unsigned kinds and a list of int64s.

// TestJSONDecoderLeavesOtherIntegerSpellingsToProtojson: the fast path gives
// up on each, and the runtime's answer is protojson's: the same value, or
// the same error.
func TestJSONDecoderLeavesOtherIntegerSpellingsToProtojson(t *testing.T) {
	for _, v := range []string{
		// protojson accepts these, as the value they round to
		`1e2`, `"1e2"`, `1E2`, `1.0`, `"1.0"`, `100e-2`, `0.0`, `-0.0`, `92233720368547758070e-1`,
		// and refuses these
		`1.5`, `1e-2`, `"+1"`, `+1`, `"01"`, `01`, `" 1"`, `"1 "`, `""`, `"-"`, `"1x"`, `true`, `{}`, `[]`,
		`9223372036854775808`, `"9223372036854775808"`, `-9223372036854775809`, `"-9223372036854775809"`, `1e19`,
	} {
		doc := []byte(`{"generation":` + v + `}`)
		var fast a2av1.Task
		if runtime.DecodeProtoJSON(doc, &fast) {
			t.Errorf("%s: decoded as %v, want it left to protojson", doc, &fast)
		}
		var got, want a2av1.Task
		err := runtime.UnmarshalJSON(doc, &got)
		wantErr := protojson.Unmarshal(doc, &want)
		if (err == nil) != (wantErr == nil) || !proto.Equal(&got, &want) {
			t.Errorf("%s: the runtime gives %v, %v; protojson %v, %v", doc, &got, err, &want, wantErr)
		}
		if err != nil && !strings.HasSuffix(err.Error(), ": "+wantErr.Error()) { // the runtime names the message type first
			t.Errorf("%s: the runtime's error %q, want protojson's %q", doc, err, wantErr)
		}
	}
}

// TestJSONDecoderUnsignedIntegers: uint64 and uint32 fields, at their
// limits, and what is left to protojson.
func TestJSONDecoderUnsignedIntegers(t *testing.T) {
	var entry binlogpb.GrpcLogEntry
	if !runtime.HasGoLayout(&entry) {
		t.Fatal("no layout for grpc.binarylog.v1.GrpcLogEntry")
	}
	mt := entry.ProtoReflect().Type()
	for _, doc := range []string{
		`{"callId":"18446744073709551615","sequenceIdWithinCall":0,"message":{"length":4294967295,"data":"AAE="},"peer":{"type":"TYPE_IPV4","address":"127.0.0.1","ipPort":"65535"}}`,
		`{"call_id":18446744073709551615,"sequence_id_within_call":"1","message":{"length":"0"}}`,
	} {
		if !checkDecoderAgainstProtojson(t, mt, []byte(doc)) {
			t.Errorf("%s: left to protojson, want it decoded", doc)
		}
	}
	for _, doc := range []string{
		`{"callId":"-0"}`, `{"callId":-0}`, `{"callId":"-1"}`, `{"callId":"18446744073709551616"}`,
		`{"message":{"length":4294967296}}`, `{"message":{"length":"-1"}}`, `{"callId":"1e3"}`,
	} {
		var fast binlogpb.GrpcLogEntry
		if runtime.DecodeProtoJSON([]byte(doc), &fast) {
			t.Errorf("%s: decoded as %v, want it left to protojson", doc, &fast)
		}
	}
	for _, m := range []proto.Message{
		&binlogpb.GrpcLogEntry{CallId: math.MaxUint64, SequenceIdWithinCall: 1, Payload: &binlogpb.GrpcLogEntry_Message{Message: &binlogpb.Message{Length: math.MaxUint32}}},
		&binlogpb.Address{IpPort: 443},
	} {
		if !checkSameAsProtojson(t, m) {
			t.Errorf("%v: left to protojson, want it encoded", m)
		}
	}
}

// TestJSONInt64List: a repeated int64 field, encoded from its Go slice and
// decoded in either form.
func TestJSONInt64List(t *testing.T) {
	m := &distribution.Distribution{Count: 3, BucketCounts: []int64{0, math.MaxInt64, math.MinInt64}}
	if !checkSameAsProtojson(t, m) {
		t.Errorf("%v: left to protojson, want it encoded", m)
	}
	doc := `{"count":"3","bucketCounts":["0",9223372036854775807,"-9223372036854775808"]}`
	if !checkDecoderAgainstProtojson(t, m.ProtoReflect().Type(), []byte(doc)) {
		t.Errorf("%s: left to protojson, want it decoded", doc)
	}
}
