-: runtime/sync/wait.hpp hal/include/hal/core.hpp \
 hal/include/hal/event.hpp hal/include/hal/time.hpp \
 runtime/support/status.hpp runtime/support/format.hpp \
 runtime/support/span.hpp runtime/support/initializer_list.hpp \
 runtime/support/types.hpp runtime/support/type_traits.hpp \
 runtime/support/string_view.hpp
hal/include/hal/core.hpp:
hal/include/hal/event.hpp:
hal/include/hal/time.hpp:
runtime/support/status.hpp:
runtime/support/format.hpp:
runtime/support/span.hpp:
runtime/support/initializer_list.hpp:
runtime/support/types.hpp:
runtime/support/type_traits.hpp:
runtime/support/string_view.hpp:
