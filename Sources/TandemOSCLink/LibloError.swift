import CLiblo

/// liblo's result codes (`lo_errors.h`) in words, for drop sentences.
enum LibloError {
    /// `LO_ESIZE` and the rest as "LO_ESIZE: a size that does not fit"; an unknown code by number.
    static func words(_ code: Int32) -> String {
        switch code {
        case LO_ENOPATH: "LO_ENOPATH: no address"
        case LO_ENOTYPE: "LO_ENOTYPE: no type tags after the address"
        case LO_UNKNOWNPROTO: "LO_UNKNOWNPROTO: unknown protocol"
        case LO_NOPORT: "LO_NOPORT: no port"
        case LO_TOOBIG: "LO_TOOBIG: too big"
        case LO_INT_ERR: "LO_INT_ERR: internal error"
        case LO_EALLOC: "LO_EALLOC: out of memory"
        case LO_EINVALIDPATH: "LO_EINVALIDPATH: the address is not a padded, NUL-terminated string"
        case LO_EINVALIDTYPE: "LO_EINVALIDTYPE: the type tags are not a padded, NUL-terminated string"
        case LO_EBADTYPE: "LO_EBADTYPE: the type tags do not start with ','"
        case LO_ESIZE: "LO_ESIZE: the sizes do not fit the packet"
        case LO_EINVALIDARG: "LO_EINVALIDARG: an argument does not fit its type tag"
        case LO_ETERM: "LO_ETERM: a string is not NUL-terminated"
        case LO_EPAD: "LO_EPAD: a string is not padded with NULs to 4 bytes"
        case LO_EINVALIDBUND: "LO_EINVALIDBUND: not a valid bundle"
        case LO_EINVALIDTIME: "LO_EINVALIDTIME: not a valid time tag"
        default: "error \(code)"
        }
    }
}
