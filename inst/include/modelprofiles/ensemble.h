// R-free core of the native tree-ensemble engine.
//
// A compiled tree ensemble (the flat format of the `mp_native` list: see
// new_native() in R/native.R) is viewed through plain pointers
// (Forest, forest.h), checked and packed into depth-first 16-byte nodes
// (pack.h; a ranger forest straight from its own vectors, ranger.h), then
// evaluated from any thread row by row (predict.h), or with the rows of a
// block pushed down each tree together and the profiled feature free (the
// set walk, setwalk.h: ICE curves and partial dependence, equal to the
// row-by-row predictions up to the order of the sums); the per-tree PD of a
// forest that averages its trees uses the set walk too (trees.h).
#ifndef MODELPROFILES_ENSEMBLE_H
#define MODELPROFILES_ENSEMBLE_H

#include "forest.h"
#include "pack.h"
#include "predict.h"
#include "ranger.h"
#include "setwalk.h"
#include "trees.h"

#endif
