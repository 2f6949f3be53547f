/**
 * The reference's external JWT signer protocol, `k8s.io/externaljwt/apis/v1` (api.proto), as
 * text: it is parsed when the signer is first dialled, so the server carries no file to find at
 * run time and loads gRPC only when --service-account-signing-endpoint is given.
 */
export const EXTERNAL_JWT_PROTO = `
syntax = "proto3";

package v1;

import "google/protobuf/timestamp.proto";

// This service is served by a process on a local Unix Domain Socket.
service ExternalJWTSigner {
  // Sign takes a serialized JWT payload, and returns the serialized header and signature.
  rpc Sign(SignJWTRequest) returns (SignJWTResponse) {}
  // FetchKeys returns the set of public keys that are trusted to sign service account tokens.
  rpc FetchKeys(FetchKeysRequest) returns (FetchKeysResponse) {}
  // Metadata is meant to be called once on startup.
  rpc Metadata(MetadataRequest) returns (MetadataResponse) {}
}

message SignJWTRequest {
  // URL-safe base64 wrapped payload to be signed, exactly as the second segment of the JWT.
  string claims = 1;
}

message SignJWTResponse {
  // alg, kid and typ only; already wrapped in URL-safe base64.
  string header = 1;
  // Already wrapped in URL-safe base64.
  string signature = 2;
}

message FetchKeysRequest {}

message FetchKeysResponse {
  repeated Key keys = 1;
  google.protobuf.Timestamp data_timestamp = 2;
  int64 refresh_hint_seconds = 3;
}

message Key {
  string key_id = 1;
  // The public key, PKIX-serialized.
  bytes key = 2;
  bool exclude_from_oidc_discovery = 3;
}

message MetadataRequest {}

message MetadataResponse {
  int64 max_token_expiration_seconds = 1;
}
`
