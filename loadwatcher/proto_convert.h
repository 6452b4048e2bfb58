#pragma once
// Conversions between lw::WatcherMetrics (metrics.h) and the gRPC message
// trimaran.loadwatcher.v1.WatcherMetrics. Lossless both ways (JSON "tags" is always
// empty and is carried by neither).
//
// Thread-safety: pure functions.

#include "loadwatcher/metrics.h"
#include "proto/loadwatcher/v1/loadwatcher.pb.h"

namespace trimaran::lw {

void ToProto(const WatcherMetrics& in, loadwatcher::v1::WatcherMetrics* out);
WatcherMetrics FromProto(const loadwatcher::v1::WatcherMetrics& in);

}  // namespace trimaran::lw
