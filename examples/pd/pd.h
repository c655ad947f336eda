// Padding (KLAP Table I "pd"): gives each row of a rows x cols int matrix the pitch cols + pad, in place. See slide.h.
#pragma once

#include "slide.h"
