package blobstore

// The S3 driver is linked in so BLOB_URL=s3://bucket?region=… works without a
// rebuild (S3 itself, or any S3-compatible store: MinIO, R2, Ceph, with
// endpoint=…&use_path_style=true). It adds about 12 MB to each binary (33 →
// 45 MB); GCS (gcsblob) stays opt-in for the same reason. The browser needs
// CORS on a real bucket: see ops/deploy/s3-cors.json.
import _ "gocloud.dev/blob/s3blob"
