package glbio

// ThumbnailSize is the long side of the thumbnail cut-out used on cards and lists.
const ThumbnailSize = 512
