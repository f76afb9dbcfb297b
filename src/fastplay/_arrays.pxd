# numpy views of memory a compiled object owns (header only: inline).
cimport numpy as cnp


cdef inline object _view(object owner, void* ptr, int rows, int k, int typenum):
    """A writable numpy view of ``rows x k`` items at ``ptr`` (1-D when
    ``rows`` is 1) whose base is ``owner``: it keeps the memory alive, and
    numpy cannot resize or free memory it does not own (an array that owns
    its data can be resized, and the core would write where it was)."""
    cdef cnp.npy_intp dims[2]
    dims[0] = rows
    dims[1] = k
    if rows == 1:
        arr = cnp.PyArray_SimpleNewFromData(1, &dims[1], typenum, ptr)
    else:
        arr = cnp.PyArray_SimpleNewFromData(2, dims, typenum, ptr)
    cnp.set_array_base(arr, owner)
    return arr
