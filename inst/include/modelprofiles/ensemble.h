// R-free core of the native tree-ensemble engine.
//
// A compiled tree ensemble (the flat format of the `mp_native` list: see
// tools/native-spec.md and R/native.R) is viewed through plain pointers
// (Forest, forest.h), checked and packed into depth-first 16-byte nodes
// (pack.h; a ranger forest straight from its own vectors, ranger.h), then
// evaluated from any thread by two paths that give the same numbers bit for
// bit: row by row (predict.h) and as ICE curves in one walk per tree and row
// (ice.h); the per-tree PD of a forest that averages its trees reuses the
// walk (trees.h).
#ifndef MODELPROFILES_ENSEMBLE_H
#define MODELPROFILES_ENSEMBLE_H

#include "forest.h"
#include "ice.h"
#include "pack.h"
#include "predict.h"
#include "ranger.h"
#include "trees.h"

#endif
