// Unpadding (KLAP Table I "upd"): removes the pad of each row of a rows x (cols + pad) int matrix, in place, leaving a
// rows x cols matrix at the front of the buffer. See ../pd/slide.h.
#pragma once

#include "../pd/slide.h"
