// Package jpegscale decodes JPEG photos at a reduced size, the way libjpeg's
// scale_num/scale_denom does: each 8×8 block is reduced as it is decoded, so a
// 40-megapixel upload never exists at full size in the worker's memory. The
// reconstruction pipeline works at about a thousand pixels on the long side,
// so decoding the full image first (image/jpeg) spent most of a photo's time
// and memory on pixels that were averaged away a moment later.
//
// The code is Go's image/jpeg decoder (BSD licence, see the header of each
// file) with the block store changed; Decode without scaling gives the same
// pixels as image/jpeg.
package jpegscale
